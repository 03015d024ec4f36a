//! The JSON writer behind every document the tools print: serde_json's pretty layout (two
//! spaces a level, `": "` after keys, `[]` / `{}` for empty containers), starting any number of
//! levels down, written straight into a byte buffer.
//!
//! The bytes are serde_json's (`to_string_pretty`, indented for the depth); the tests below
//! and in `document.rs` hold it to that for any value. What differs is the cost: strings are
//! checked for bytes that need escaping eight bytes at a time and copied in runs, and no layer
//! of `io::Write` sits between the serializer and the buffer.

use serde::ser::{self, Error as _, Serialize};

/// Serializes `value` into `out` in serde_json's pretty layout, as if it sat `depth` levels
/// down: every line after the first is indented by `2 * depth` more spaces.
pub(crate) fn write_at_depth<T: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    value: &T,
    depth: usize,
) -> serde_json::Result<()> {
    value.serialize(&mut Pretty { out, depth })
}

/// Appends `s` as a JSON string literal, escaped exactly as serde_json escapes it: `"` and
/// `\` with a backslash, `\b \t \n \f \r` by name, other bytes below 0x20 as `\u00xx`
/// (lower-case hex), everything else (DEL and non-ASCII included) as it is.
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    let len = bytes.len();
    out.reserve(len + 2);
    out.push(b'"');
    // Eight bytes at a time, each clean word copied as a word (a fixed-size copy costs a
    // store; a copy of a length known only at run time costs a call of memcpy).
    let mut at = 0;
    while at + 8 <= len {
        let chunk = word_at(bytes, at);
        if escapes_in(chunk) != 0 {
            write_escaped(out, bytes, at);
            out.push(b'"');
            return;
        }
        out.extend_from_slice(&chunk.to_le_bytes());
        at += 8;
    }
    if at < len {
        if len >= 8 {
            // The last eight bytes, overlapping some already copied: those are written
            // again, over themselves.
            let chunk = word_at(bytes, len - 8);
            if escapes_in(chunk) != 0 {
                write_escaped(out, bytes, at);
                out.push(b'"');
                return;
            }
            out.truncate(out.len() - (8 - (len - at)));
            out.extend_from_slice(&chunk.to_le_bytes());
        } else if bytes.iter().any(|&b| needs_escape(b)) {
            write_escaped(out, bytes, 0);
        } else {
            out.extend_from_slice(bytes);
        }
    }
    out.push(b'"');
}

/// The eight bytes at `at`, as a little-endian word.
fn word_at(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(word)
}

/// The contents of a string from `from` on, escaped (the bytes before it are written).
#[cold]
fn write_escaped(out: &mut Vec<u8>, bytes: &[u8], from: usize) {
    let mut start = from;
    while let Some(i) = next_escape(bytes, start) {
        out.extend_from_slice(&bytes[start..i]);
        write_escape(out, bytes[i]);
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
}

const LOW: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// Bytes of `word` (little-endian) that are zero: the high bit of each such byte is set; a
/// byte above a zero byte may be flagged too (the borrow), never one below it, so the lowest
/// flag is always the first zero byte.
fn zero_bytes(word: u64) -> u64 {
    word.wrapping_sub(LOW) & !word & HIGH
}

/// The bytes of a little-endian word that JSON needs escaped, flagged as [`zero_bytes`]
/// flags them (the lowest flag is the first such byte).
fn escapes_in(word: u64) -> u64 {
    // Below 0x20: `word - 0x20` borrows into the high bit of a byte under 0x20 (where the
    // byte's own high bit is clear), with the same borrow caveat as `zero_bytes`.
    let control = word.wrapping_sub(LOW * 0x20) & !word & HIGH;
    let quote = zero_bytes(word ^ (LOW * u64::from(b'"')));
    let backslash = zero_bytes(word ^ (LOW * u64::from(b'\\')));
    control | quote | backslash
}

/// The first byte at or after `from` that JSON needs escaped (below 0x20, `"`, `\`).
fn next_escape(bytes: &[u8], from: usize) -> Option<usize> {
    let len = bytes.len();
    let mut at = from;
    while at + 8 <= len {
        let hits = escapes_in(word_at(bytes, at));
        if hits != 0 {
            return Some(at + (hits.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    if at == len {
        return None;
    }
    if len >= from + 8 {
        // The last eight bytes, overlapping some already found clean (never one before
        // `from`, which may need escaping): the first flag is past those.
        let hits = escapes_in(word_at(bytes, len - 8));
        return (hits != 0).then(|| len - 8 + (hits.trailing_zeros() / 8) as usize);
    }
    bytes[at..]
        .iter()
        .position(|&b| needs_escape(b))
        .map(|i| at + i)
}

fn needs_escape(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

fn write_escape(out: &mut Vec<u8>, b: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let short = match b {
        b'"' => b'"',
        b'\\' => b'\\',
        0x08 => b'b',
        b'\t' => b't',
        b'\n' => b'n',
        0x0c => b'f',
        b'\r' => b'r',
        _ => {
            out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 0xf)],
            ]);
            return;
        }
    };
    out.extend_from_slice(&[b'\\', short]);
}

/// Appends the decimal digits of `n`.
fn write_u64(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

fn write_i64(out: &mut Vec<u8>, n: i64) {
    if n < 0 {
        out.push(b'-');
    }
    write_u64(out, n.unsigned_abs());
}

/// A float as serde_json writes it (shortest round-trip form; `null` when not finite).
fn write_f64(out: &mut Vec<u8>, n: f64) -> serde_json::Result<()> {
    serde_json::to_writer(out, &n)
}

fn write_f32(out: &mut Vec<u8>, n: f32) -> serde_json::Result<()> {
    serde_json::to_writer(out, &n)
}

/// serde_json's marker for a `RawValue`: a struct of this name with one field of this name,
/// whose string is written as it is.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// `,\n` and the spaces of 32 levels.
const LINE: &[u8; 66] = b",\n                                                                ";

/// The first sixteen bytes of [`LINE`] from `skip` (0 or 1) on.
fn line16(skip: usize) -> [u8; 16] {
    let mut out = [b' '; 16];
    out.copy_from_slice(&LINE[skip..skip + 16]);
    out
}

struct Pretty<'a> {
    out: &'a mut Vec<u8>,
    /// The depth of the container being written (its items are one deeper).
    depth: usize,
}

impl Pretty<'_> {
    /// A line break (after a comma when `comma`) and the indent of `depth`: one copy from a
    /// ready-made run of bytes (this is written before every item).
    fn newline(&mut self, comma: bool, depth: usize) {
        /// `,\n` and the spaces of 32 levels.
        const LINE: &[u8; 66] =
            b",\n                                                                ";
        let skip = usize::from(!comma);
        let width = depth * 2;
        if width <= 14 {
            // Sixteen bytes copied (a fixed-size copy is a store, not a call), the ones past
            // the indent taken back.
            let wanted = 2 - skip + width;
            self.out.extend_from_slice(&line16(skip));
            self.out.truncate(self.out.len() - (16 - wanted));
        } else if width <= LINE.len() - 2 {
            self.out.extend_from_slice(&LINE[skip..2 + width]);
        } else {
            self.out.extend_from_slice(&LINE[skip..2]);
            for _ in 0..depth {
                self.out.extend_from_slice(b"  ");
            }
        }
    }

    /// `{"variant": ` opened at this depth, the value to follow.
    fn open_variant(&mut self, variant: &str) {
        self.out.push(b'{');
        self.depth += 1;
        self.newline(false, self.depth);
        write_str(self.out, variant);
        self.out.extend_from_slice(b": ");
    }

    /// Closes what [`Pretty::open_variant`] opened.
    fn close_variant(&mut self) {
        self.depth -= 1;
        self.newline(false, self.depth);
        self.out.push(b'}');
    }
}

/// Opens a container; one announced `empty` is closed at once.
fn open<'s, 'a>(ser: &'s mut Pretty<'a>, bracket: u8, empty: bool) -> Compound<'s, 'a> {
    let close = if bracket == b'[' { b']' } else { b'}' };
    ser.out.push(bracket);
    if empty {
        ser.out.push(close);
    } else {
        ser.depth += 1;
    }
    Compound {
        ser,
        state: if empty { State::Empty } else { State::First },
        close,
    }
}

#[derive(PartialEq)]
enum State {
    /// Opened and closed already (a length of zero was announced).
    Empty,
    First,
    Rest,
    /// The fields of a `RawValue`: written as they are.
    Raw,
}

struct Compound<'s, 'a> {
    ser: &'s mut Pretty<'a>,
    state: State,
    close: u8,
}

impl Compound<'_, '_> {
    /// Starts an item (or a key): the separator and the indent of its line.
    fn item(&mut self) {
        let ser = &mut *self.ser;
        ser.newline(self.state != State::First, ser.depth);
        self.state = State::Rest;
    }

    fn end_container(&mut self) {
        match self.state {
            State::Empty | State::Raw => {}
            State::First => {
                // Announced as non-empty (or of unknown length), yet nothing came.
                self.ser.depth -= 1;
                self.ser.out.push(self.close);
            }
            State::Rest => {
                self.ser.depth -= 1;
                self.ser.newline(false, self.ser.depth);
                self.ser.out.push(self.close);
            }
        }
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> serde_json::Result<()> {
        self.item();
        value.serialize(&mut *self.ser)
    }

    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> serde_json::Result<()> {
        self.item();
        write_str(self.ser.out, key);
        self.ser.out.extend_from_slice(b": ");
        value.serialize(&mut *self.ser)
    }
}

impl<'s, 'a> ser::Serializer for &'s mut Pretty<'a> {
    type Ok = ();
    type Error = serde_json::Error;
    type SerializeSeq = Compound<'s, 'a>;
    type SerializeTuple = Compound<'s, 'a>;
    type SerializeTupleStruct = Compound<'s, 'a>;
    type SerializeTupleVariant = Compound<'s, 'a>;
    type SerializeMap = Compound<'s, 'a>;
    type SerializeStruct = Compound<'s, 'a>;
    type SerializeStructVariant = Compound<'s, 'a>;

    fn serialize_bool(self, v: bool) -> serde_json::Result<()> {
        self.out
            .extend_from_slice(if v { b"true" } else { b"false" });
        Ok(())
    }

    fn serialize_i8(self, v: i8) -> serde_json::Result<()> {
        write_i64(self.out, i64::from(v));
        Ok(())
    }

    fn serialize_i16(self, v: i16) -> serde_json::Result<()> {
        write_i64(self.out, i64::from(v));
        Ok(())
    }

    fn serialize_i32(self, v: i32) -> serde_json::Result<()> {
        write_i64(self.out, i64::from(v));
        Ok(())
    }

    fn serialize_i64(self, v: i64) -> serde_json::Result<()> {
        write_i64(self.out, v);
        Ok(())
    }

    fn serialize_i128(self, v: i128) -> serde_json::Result<()> {
        self.out.extend_from_slice(v.to_string().as_bytes());
        Ok(())
    }

    fn serialize_u8(self, v: u8) -> serde_json::Result<()> {
        write_u64(self.out, u64::from(v));
        Ok(())
    }

    fn serialize_u16(self, v: u16) -> serde_json::Result<()> {
        write_u64(self.out, u64::from(v));
        Ok(())
    }

    fn serialize_u32(self, v: u32) -> serde_json::Result<()> {
        write_u64(self.out, u64::from(v));
        Ok(())
    }

    fn serialize_u64(self, v: u64) -> serde_json::Result<()> {
        write_u64(self.out, v);
        Ok(())
    }

    fn serialize_u128(self, v: u128) -> serde_json::Result<()> {
        self.out.extend_from_slice(v.to_string().as_bytes());
        Ok(())
    }

    fn serialize_f32(self, v: f32) -> serde_json::Result<()> {
        write_f32(self.out, v)
    }

    fn serialize_f64(self, v: f64) -> serde_json::Result<()> {
        write_f64(self.out, v)
    }

    fn serialize_char(self, v: char) -> serde_json::Result<()> {
        write_str(self.out, v.encode_utf8(&mut [0u8; 4]));
        Ok(())
    }

    fn serialize_str(self, v: &str) -> serde_json::Result<()> {
        write_str(self.out, v);
        Ok(())
    }

    fn serialize_bytes(self, v: &[u8]) -> serde_json::Result<()> {
        use ser::SerializeSeq;
        let mut seq = self.serialize_seq(Some(v.len()))?;
        for b in v {
            seq.serialize_element(b)?;
        }
        seq.end()
    }

    fn serialize_none(self) -> serde_json::Result<()> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> serde_json::Result<()> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> serde_json::Result<()> {
        self.serialize_none()
    }

    fn serialize_unit_struct(self, _name: &'static str) -> serde_json::Result<()> {
        self.serialize_none()
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> serde_json::Result<()> {
        write_str(self.out, variant);
        Ok(())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> serde_json::Result<()> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> serde_json::Result<()> {
        self.open_variant(variant);
        value.serialize(&mut *self)?;
        self.close_variant();
        Ok(())
    }

    fn serialize_seq(self, len: Option<usize>) -> serde_json::Result<Compound<'s, 'a>> {
        Ok(open(self, b'[', len == Some(0)))
    }

    fn serialize_tuple(self, len: usize) -> serde_json::Result<Compound<'s, 'a>> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> serde_json::Result<Compound<'s, 'a>> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> serde_json::Result<Compound<'s, 'a>> {
        self.open_variant(variant);
        self.serialize_seq(Some(len))
    }

    fn serialize_map(self, len: Option<usize>) -> serde_json::Result<Compound<'s, 'a>> {
        Ok(open(self, b'{', len == Some(0)))
    }

    fn serialize_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> serde_json::Result<Compound<'s, 'a>> {
        if name == RAW_VALUE_TOKEN {
            return Ok(Compound {
                ser: self,
                state: State::Raw,
                close: b'}',
            });
        }
        self.serialize_map(Some(len))
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> serde_json::Result<Compound<'s, 'a>> {
        self.open_variant(variant);
        self.serialize_map(Some(len))
    }
}

impl ser::SerializeSeq for Compound<'_, '_> {
    type Ok = ();
    type Error = serde_json::Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> serde_json::Result<()> {
        self.element(value)
    }

    fn end(mut self) -> serde_json::Result<()> {
        self.end_container();
        Ok(())
    }
}

impl ser::SerializeTuple for Compound<'_, '_> {
    type Ok = ();
    type Error = serde_json::Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> serde_json::Result<()> {
        self.element(value)
    }

    fn end(mut self) -> serde_json::Result<()> {
        self.end_container();
        Ok(())
    }
}

impl ser::SerializeTupleStruct for Compound<'_, '_> {
    type Ok = ();
    type Error = serde_json::Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> serde_json::Result<()> {
        self.element(value)
    }

    fn end(mut self) -> serde_json::Result<()> {
        self.end_container();
        Ok(())
    }
}

impl ser::SerializeTupleVariant for Compound<'_, '_> {
    type Ok = ();
    type Error = serde_json::Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> serde_json::Result<()> {
        self.element(value)
    }

    fn end(self) -> serde_json::Result<()> {
        end_variant(self);
        Ok(())
    }
}

/// Closes a tuple or struct variant: its container, then the `{"variant": ...}` around it.
fn end_variant(mut compound: Compound<'_, '_>) {
    compound.end_container();
    compound.ser.close_variant();
}

impl ser::SerializeMap for Compound<'_, '_> {
    type Ok = ();
    type Error = serde_json::Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> serde_json::Result<()> {
        self.item();
        key.serialize(MapKey {
            out: &mut *self.ser.out,
        })
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> serde_json::Result<()> {
        self.ser.out.extend_from_slice(b": ");
        value.serialize(&mut *self.ser)
    }

    fn end(mut self) -> serde_json::Result<()> {
        self.end_container();
        Ok(())
    }
}

impl ser::SerializeStruct for Compound<'_, '_> {
    type Ok = ();
    type Error = serde_json::Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> serde_json::Result<()> {
        if self.state == State::Raw {
            if key != RAW_VALUE_TOKEN {
                return Err(serde_json::Error::custom("unexpected raw value field"));
            }
            // The raw JSON text, a string: written as it is (a rare path, never a hot one).
            let serde_json::Value::String(text) = serde_json::to_value(value)? else {
                return Err(serde_json::Error::custom("a raw value that is not text"));
            };
            self.ser.out.extend_from_slice(text.as_bytes());
            return Ok(());
        }
        self.field(key, value)
    }

    fn end(mut self) -> serde_json::Result<()> {
        self.end_container();
        Ok(())
    }
}

impl ser::SerializeStructVariant for Compound<'_, '_> {
    type Ok = ();
    type Error = serde_json::Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> serde_json::Result<()> {
        self.field(key, value)
    }

    fn end(self) -> serde_json::Result<()> {
        end_variant(self);
        Ok(())
    }
}

fn key_must_be_a_string() -> serde_json::Error {
    serde_json::Error::custom("key must be a string")
}

/// A map key: strings as they are, numbers, booleans and chars quoted, as serde_json does;
/// anything else is an error.
struct MapKey<'a> {
    out: &'a mut Vec<u8>,
}

impl MapKey<'_> {
    fn quoted(self, write: impl FnOnce(&mut Vec<u8>)) -> serde_json::Result<()> {
        self.out.push(b'"');
        write(self.out);
        self.out.push(b'"');
        Ok(())
    }
}

impl ser::Serializer for MapKey<'_> {
    type Ok = ();
    type Error = serde_json::Error;
    type SerializeSeq = ser::Impossible<(), serde_json::Error>;
    type SerializeTuple = ser::Impossible<(), serde_json::Error>;
    type SerializeTupleStruct = ser::Impossible<(), serde_json::Error>;
    type SerializeTupleVariant = ser::Impossible<(), serde_json::Error>;
    type SerializeMap = ser::Impossible<(), serde_json::Error>;
    type SerializeStruct = ser::Impossible<(), serde_json::Error>;
    type SerializeStructVariant = ser::Impossible<(), serde_json::Error>;

    fn serialize_bool(self, v: bool) -> serde_json::Result<()> {
        self.quoted(|out| out.extend_from_slice(if v { b"true" } else { b"false" }))
    }

    fn serialize_i8(self, v: i8) -> serde_json::Result<()> {
        self.quoted(|out| write_i64(out, i64::from(v)))
    }

    fn serialize_i16(self, v: i16) -> serde_json::Result<()> {
        self.quoted(|out| write_i64(out, i64::from(v)))
    }

    fn serialize_i32(self, v: i32) -> serde_json::Result<()> {
        self.quoted(|out| write_i64(out, i64::from(v)))
    }

    fn serialize_i64(self, v: i64) -> serde_json::Result<()> {
        self.quoted(|out| write_i64(out, v))
    }

    fn serialize_i128(self, v: i128) -> serde_json::Result<()> {
        self.quoted(|out| out.extend_from_slice(v.to_string().as_bytes()))
    }

    fn serialize_u8(self, v: u8) -> serde_json::Result<()> {
        self.quoted(|out| write_u64(out, u64::from(v)))
    }

    fn serialize_u16(self, v: u16) -> serde_json::Result<()> {
        self.quoted(|out| write_u64(out, u64::from(v)))
    }

    fn serialize_u32(self, v: u32) -> serde_json::Result<()> {
        self.quoted(|out| write_u64(out, u64::from(v)))
    }

    fn serialize_u64(self, v: u64) -> serde_json::Result<()> {
        self.quoted(|out| write_u64(out, v))
    }

    fn serialize_u128(self, v: u128) -> serde_json::Result<()> {
        self.quoted(|out| out.extend_from_slice(v.to_string().as_bytes()))
    }

    fn serialize_f32(self, v: f32) -> serde_json::Result<()> {
        if !v.is_finite() {
            return Err(serde_json::Error::custom("float key must be finite"));
        }
        self.out.push(b'"');
        write_f32(self.out, v)?;
        self.out.push(b'"');
        Ok(())
    }

    fn serialize_f64(self, v: f64) -> serde_json::Result<()> {
        if !v.is_finite() {
            return Err(serde_json::Error::custom("float key must be finite"));
        }
        self.out.push(b'"');
        write_f64(self.out, v)?;
        self.out.push(b'"');
        Ok(())
    }

    fn serialize_char(self, v: char) -> serde_json::Result<()> {
        write_str(self.out, v.encode_utf8(&mut [0u8; 4]));
        Ok(())
    }

    fn serialize_str(self, v: &str) -> serde_json::Result<()> {
        write_str(self.out, v);
        Ok(())
    }

    fn serialize_bytes(self, _: &[u8]) -> serde_json::Result<()> {
        Err(key_must_be_a_string())
    }

    fn serialize_none(self) -> serde_json::Result<()> {
        Err(key_must_be_a_string())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> serde_json::Result<()> {
        Err(key_must_be_a_string())
    }

    fn serialize_unit(self) -> serde_json::Result<()> {
        Err(key_must_be_a_string())
    }

    fn serialize_unit_struct(self, _: &'static str) -> serde_json::Result<()> {
        Err(key_must_be_a_string())
    }

    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> serde_json::Result<()> {
        write_str(self.out, variant);
        Ok(())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> serde_json::Result<()> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> serde_json::Result<()> {
        Err(key_must_be_a_string())
    }

    fn serialize_seq(self, _: Option<usize>) -> serde_json::Result<Self::SerializeSeq> {
        Err(key_must_be_a_string())
    }

    fn serialize_tuple(self, _: usize) -> serde_json::Result<Self::SerializeTuple> {
        Err(key_must_be_a_string())
    }

    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> serde_json::Result<Self::SerializeTupleStruct> {
        Err(key_must_be_a_string())
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> serde_json::Result<Self::SerializeTupleVariant> {
        Err(key_must_be_a_string())
    }

    fn serialize_map(self, _: Option<usize>) -> serde_json::Result<Self::SerializeMap> {
        Err(key_must_be_a_string())
    }

    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> serde_json::Result<Self::SerializeStruct> {
        Err(key_must_be_a_string())
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> serde_json::Result<Self::SerializeStructVariant> {
        Err(key_must_be_a_string())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;
    use serde::Serialize;

    use super::*;

    /// serde_json's pretty text of `value`, moved `depth` levels down.
    fn expected<T: Serialize + ?Sized>(value: &T, depth: usize) -> String {
        let indent = format!("\n{}", "  ".repeat(depth));
        serde_json::to_string_pretty(value)
            .unwrap()
            .replace('\n', &indent)
    }

    fn ours<T: Serialize + ?Sized>(value: &T, depth: usize) -> String {
        let mut out = Vec::new();
        write_at_depth(&mut out, value, depth).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[derive(Serialize, Clone, Debug)]
    enum Shape {
        Unit,
        Newtype(Option<u8>),
        Tuple(i64, String),
        EmptyTuple(),
        Struct { a: Vec<u16>, b: char },
        EmptyStruct {},
    }

    #[derive(Serialize, Clone, Debug)]
    struct Unit;

    #[derive(Serialize, Clone, Debug)]
    struct Newtype(String);

    #[derive(Serialize, Clone, Debug)]
    struct Pair(i8, bool);

    #[derive(Serialize, Clone, Debug)]
    struct Everything {
        shapes: Vec<Shape>,
        ints: BTreeMap<i32, u64>,
        bools: BTreeMap<bool, ()>,
        chars: BTreeMap<char, Unit>,
        names: BTreeMap<String, Newtype>,
        float: f64,
        small: f32,
        pair: Pair,
        tuple: (u128, i128),
        empty: Vec<Vec<u8>>,
        #[serde(with = "serde_bytes_as_slice")]
        bytes: Vec<u8>,
        #[serde(skip_serializing_if = "Option::is_none")]
        maybe: Option<String>,
    }

    /// `serialize_bytes` rather than a sequence of u8.
    mod serde_bytes_as_slice {
        pub fn serialize<S: serde::Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
            s.serialize_bytes(v)
        }
    }

    fn any_string() -> impl Strategy<Value = String> {
        // Every byte that needs escaping, the ones around them, and non-ASCII, in runs long
        // enough to cross the eight-byte steps.
        prop::collection::vec(
            prop_oneof![
                (0u32..0x80).prop_map(|c| char::from_u32(c).unwrap()),
                Just('\u{7f}'),
                Just('é'),
                Just('\u{2028}'),
                Just('𝄞'),
                Just('a'),
            ],
            0..40,
        )
        .prop_map(|chars| chars.into_iter().collect())
    }

    fn any_shape() -> impl Strategy<Value = Shape> {
        prop_oneof![
            Just(Shape::Unit),
            any::<Option<u8>>().prop_map(Shape::Newtype),
            (any::<i64>(), any_string()).prop_map(|(a, b)| Shape::Tuple(a, b)),
            Just(Shape::EmptyTuple()),
            (prop::collection::vec(any::<u16>(), 0..3), any::<char>())
                .prop_map(|(a, b)| Shape::Struct { a, b }),
            Just(Shape::EmptyStruct {}),
        ]
    }

    fn any_everything() -> impl Strategy<Value = Everything> {
        (
            prop::collection::vec(any_shape(), 0..4),
            prop::collection::btree_map(any::<i32>(), any::<u64>(), 0..3),
            prop::collection::btree_map(any::<bool>(), Just(()), 0..2),
            prop::collection::btree_map(any::<char>(), Just(Unit), 0..2),
            prop::collection::btree_map(any_string(), any_string().prop_map(Newtype), 0..3),
            (any::<f64>(), any::<f32>(), any::<i8>(), any::<bool>()),
            (any::<u128>(), any::<i128>()),
            prop::collection::vec(prop::collection::vec(any::<u8>(), 0..2), 0..3),
            prop::collection::vec(any::<u8>(), 0..3),
            prop::option::of(any_string()),
        )
            .prop_map(
                |(
                    shapes,
                    ints,
                    bools,
                    chars,
                    names,
                    (float, small, i, b),
                    tuple,
                    empty,
                    bytes,
                    maybe,
                )| {
                    Everything {
                        shapes,
                        ints,
                        bools,
                        chars,
                        names,
                        float,
                        small,
                        pair: Pair(i, b),
                        tuple,
                        empty,
                        bytes,
                        maybe,
                    }
                },
            )
    }

    #[test]
    fn strings_escape_as_serde_json_does() {
        let cases: &[(&str, &str)] = &[
            ("empty", ""),
            ("plain, longer than a step", "tests/test_a.py::test_x[1-2]"),
            ("quote at each place of a step", "\"a\"bcdefg\"hijklmno\""),
            ("backslash", "C:\\x\\y"),
            ("named escapes", "\u{8}\t\n\u{c}\r"),
            ("other controls", "\u{0}\u{1}\u{1f}\u{b}\u{e}"),
            ("boundaries that need nothing", " !#[]\u{7f}~"),
            ("non-ASCII", "é—𝄞\u{2028}"),
            ("escape right after a clean step", "01234567\n"),
        ];
        for (name, s) in cases {
            let mut out = Vec::new();
            write_str(&mut out, s);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                serde_json::to_string(s).unwrap(),
                "{name}"
            );
        }
        // Every single byte below 0x80 at every offset of a 16-byte string.
        for b in 0u8..0x80 {
            for at in 0..16 {
                let mut s = vec![b'x'; 16];
                s[at] = b;
                let s = String::from_utf8(s).unwrap();
                let mut out = Vec::new();
                write_str(&mut out, &s);
                assert_eq!(out, serde_json::to_vec(&s).unwrap(), "byte {b:#x} at {at}");
            }
        }
    }

    #[test]
    fn numbers_and_scalars_match() {
        let values = serde_json::json!([
            0,
            1,
            -1,
            9,
            10,
            99,
            100,
            u64::MAX,
            i64::MIN,
            i64::MAX,
            0.5,
            -0.0,
            1e300,
            1.0,
            true,
            false,
            null,
            "s"
        ]);
        for depth in [0, 1, 3] {
            assert_eq!(ours(&values, depth), expected(&values, depth));
        }
        for f in [f64::NAN, f64::INFINITY, 1.5e-7, 123_456_789.125] {
            assert_eq!(ours(&f, 0), serde_json::to_string(&f).unwrap());
        }
        assert_eq!(ours(&u128::MAX, 0), u128::MAX.to_string());
        assert_eq!(ours(&i128::MIN, 0), i128::MIN.to_string());
    }

    #[test]
    fn keys_that_are_not_strings_are_refused() {
        let mut map: BTreeMap<Vec<u8>, u8> = BTreeMap::new();
        map.insert(vec![1], 1);
        let mut out = Vec::new();
        let err = write_at_depth(&mut out, &map, 0).unwrap_err();
        assert!(err.to_string().contains("key must be a string"), "{err}");
        let mut map: BTreeMap<Option<u8>, u8> = BTreeMap::new();
        map.insert(None, 1);
        assert!(write_at_depth(&mut Vec::new(), &map, 0).is_err());
        serde_json::to_string(&map).unwrap_err();
    }

    #[test]
    fn raw_values_are_written_as_they_are() {
        let raw = serde_json::value::RawValue::from_string("{\"a\":  [1,2]}".into()).unwrap();
        let value = vec![raw];
        assert_eq!(ours(&value, 2), expected(&value, 2));
    }

    proptest! {
        #[test]
        fn any_value_is_serde_json_pretty_at_any_depth(
            value in any_everything(),
            depth in 0usize..40,
        ) {
            prop_assert_eq!(ours(&value, depth), expected(&value, depth));
        }

        #[test]
        fn any_string_is_serde_json_escaped(s in any_string()) {
            let mut out = Vec::new();
            write_str(&mut out, &s);
            prop_assert_eq!(out, serde_json::to_vec(&s).unwrap());
        }
    }
}
