//! Where the lane marks of a collected file's unmarked tests go (a module's `pytestmark`, a
//! uniform class's decorator, a test's decorator), and the inserts and report lines for them.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use lane_core::Rule;
use lane_core::scan::{Lane, ScanTest};
use lane_python::layout::Layout;

use super::Decision;
use super::edits::{FileEdit, Insert, module_mark};

/// Where a lane mark goes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Place {
    Module(Lane),
    /// The outermost class, by name.
    Class(String, Lane),
    /// A test function, by the line of its name, in its defining file.
    Function(String, u64, Lane),
    /// A test defined in another file under a class that is not uniform: not placed.
    Nowhere(String),
    /// A test function (defining file, line, id without parameters) collected as several
    /// tests that need different lanes (a base class's test inherited by a freeze class and a
    /// class that is not uniform): one decorator would give some of them a wrong or second
    /// lane, so none is placed and it is listed for a human.
    Mixed(String, u64, String),
}

/// Where the marks of one collected file's unmarked tests go.
pub(super) fn place(
    tests: &[&ScanTest],
    decided: &[(&ScanTest, Decision)],
    lane_of: &dyn Fn(Decision) -> Option<Lane>,
    layout: &Layout,
) -> Vec<Place> {
    let lanes: Vec<Option<Lane>> = decided.iter().map(|(_, d)| lane_of(*d)).collect();
    let all_unmarked = decided.len() == tests.len();
    if all_unmarked
        && !layout.has_pytestmark
        && let Some(Some(first)) = lanes.first()
        && lanes.iter().all(|l| *l == Some(*first))
    {
        return vec![Place::Module(*first)];
    }
    // What each test's check asks of the file's other tests, counted once (a file of
    // thousands of tests stays linear): the tests of each outermost class, the lanes its
    // unmarked tests get, the items of each definition and how many get each lane.
    let mut members: HashMap<&str, usize> = HashMap::new();
    let mut items: HashMap<(&str, u64), usize> = HashMap::new();
    for x in tests {
        if let Some(outer) = outer_class(x) {
            *members.entry(outer).or_default() += 1;
        }
        *items.entry(def_key(x)).or_default() += 1;
    }
    // Per outermost class: how many of its tests are decided here, and the lane all of them
    // get (None once two differ or one gets none).
    let mut class_lane: HashMap<&str, (usize, Option<Lane>)> = HashMap::new();
    let mut agreeing: HashMap<((&str, u64), Lane), usize> = HashMap::new();
    for ((x, _), l) in decided.iter().zip(&lanes) {
        if let Some(outer) = outer_class(x) {
            let (count, all) = class_lane.entry(outer).or_insert((0, *l));
            *count += 1;
            if *all != *l {
                *all = None;
            }
        }
        if let Some(l) = l {
            *agreeing.entry((def_key(x), *l)).or_default() += 1;
        }
    }
    let classes_in_file: HashSet<&str> = layout
        .defs
        .iter()
        .filter(|d| d.is_class && d.qual.len() == 1)
        .map(|d| d.qual[0].as_str())
        .collect();
    let mut places = Vec::new();
    let mut done_classes: BTreeSet<String> = BTreeSet::new();
    let mut mixed: HashSet<Place> = HashSet::new();
    for ((t, _), lane) in decided.iter().zip(&lanes) {
        let Some(lane) = lane else { continue };
        if let Some(outer) = outer_class(t) {
            // Every test of the class is decided here and gets this lane.
            let uniform = class_lane.get(outer).is_some_and(|(count, all)| {
                *all == Some(*lane) && members.get(outer) == Some(count)
            });
            if classes_in_file.contains(outer) && uniform {
                if done_classes.insert(outer.to_string()) {
                    places.push(Place::Class(outer.to_string(), *lane));
                }
                continue;
            }
        }
        // Every item of this function (same defining file and line) collected here: one
        // decorator reaches them all, so it is placed only if they all get this lane.
        let key = def_key(t);
        if agreeing.get(&(key, *lane)) != items.get(&key) {
            let id = t.id.split('[').next().unwrap_or(&t.id).to_string();
            let place = Place::Mixed(t.defining_file().to_string(), t.line, id);
            if mixed.insert(place.clone()) {
                places.push(place);
            }
            continue;
        }
        match &t.defined_in {
            None => places.push(Place::Function(t.file.clone(), t.line, *lane)),
            Some(_) if outer_class(t).is_none() => places.push(Place::Function(
                t.defining_file().to_string(),
                t.line,
                *lane,
            )),
            Some(_) => places.push(Place::Nowhere(t.id.clone())),
        }
    }
    places
}

/// Turns placements into inserts and report lines, and says which decided tests a placed mark
/// reaches.
pub(super) struct Placer<'d, 's> {
    file: &'d str,
    decided: &'d [(&'s ScanTest, Decision)],
    lane_of: &'d dyn Fn(Decision) -> Option<Lane>,
    /// The decided tests of each definition and of each outermost class, found once: a mark
    /// placed looks only at the tests it can reach (a file of thousands of tests stays linear).
    by_def: HashMap<(&'s str, u64), Vec<usize>>,
    by_class: HashMap<&'s str, Vec<usize>>,
    /// Which decided tests a placed mark reaches.
    marked: Vec<bool>,
}

impl<'d, 's> Placer<'d, 's> {
    pub(super) fn new(
        file: &'d str,
        decided: &'d [(&'s ScanTest, Decision)],
        lane_of: &'d dyn Fn(Decision) -> Option<Lane>,
    ) -> Self {
        let mut by_def: HashMap<(&str, u64), Vec<usize>> = HashMap::new();
        let mut by_class: HashMap<&str, Vec<usize>> = HashMap::new();
        for (k, (t, _)) in decided.iter().enumerate() {
            by_def.entry(def_key(t)).or_default().push(k);
            if let Some(outer) = outer_class(t) {
                by_class.entry(outer).or_default().push(k);
            }
        }
        Placer {
            file,
            decided,
            lane_of,
            by_def,
            by_class,
            marked: vec![false; decided.len()],
        }
    }

    /// Places every mark; which decided tests a placed mark reaches.
    pub(super) fn apply(
        mut self,
        places: &[Place],
        files: &mut BTreeMap<String, FileEdit>,
        lines: &mut Vec<String>,
    ) -> Vec<bool> {
        for p in places {
            let line = match p {
                Place::Module(lane) => self.module(*lane, files),
                Place::Class(name, lane) => self.class(name, *lane, files),
                Place::Function(def_file, line, lane) => {
                    self.function(def_file, *line, *lane, files)
                }
                Place::Nowhere(id) => Some(format!(
                    "{}: {id}: not marked: it is defined in another file and its class here is not uniform; mark it by hand",
                    self.file
                )),
                Place::Mixed(def_file, line, id) => Some(format!(
                    "{def_file}:{line}: {id}: not marked: its definition is collected as several tests that need different lanes ({}), and one decorator would reach them all; mark it by hand",
                    self.rules_of(self.of_def(def_file, *line))
                )),
            };
            lines.extend(line);
        }
        self.marked
    }

    fn of_def<'f>(&'f self, file: &'f str, line: u64) -> &'f [usize] {
        // The map's keys borrow the scan; a shorter borrow looks them up (keys are covariant).
        let by_def: &'f HashMap<(&'f str, u64), Vec<usize>> = &self.by_def;
        by_def.get(&(file, line)).map_or(&[], Vec::as_slice)
    }

    /// A class's tests: those whose id starts `FILE::CLASS::`.
    fn of_class(&self, prefix: &str, name: &str) -> Vec<usize> {
        self.by_class.get(name).map_or_else(Vec::new, |ks| {
            ks.iter()
                .copied()
                .filter(|&k| self.decided[k].0.id.starts_with(prefix))
                .collect()
        })
    }

    fn mark(&mut self, reached: &[usize]) {
        for &k in reached {
            if (self.lane_of)(self.decided[k].1).is_some() {
                self.marked[k] = true;
            }
        }
    }

    /// `rule: count, ...` of the rules that decided the reached tests' lanes.
    fn rules_of(&self, reached: &[usize]) -> String {
        let mut rules: BTreeMap<&str, usize> = BTreeMap::new();
        for &k in reached {
            let r = match self.decided[k].1 {
                Decision::Lane(_, r) => r,
                Decision::FreezeCandidate => Rule::FixFreezeCandidate,
            };
            *rules.entry(r.id()).or_default() += 1;
        }
        rules
            .iter()
            .map(|(r, n)| format!("{r}: {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn module(&mut self, lane: Lane, files: &mut BTreeMap<String, FileEdit>) -> Option<String> {
        let edit = files.get_mut(self.file)?;
        let text = format!("pytestmark = pytest.mark.{}\n", lane.as_str());
        module_mark(edit, text);
        let all: Vec<usize> = (0..self.decided.len()).collect();
        self.mark(&all);
        Some(format!(
            "{}: pytestmark = pytest.mark.{} ({})",
            self.file,
            lane.as_str(),
            self.rules_of(&all)
        ))
    }

    fn class(
        &mut self,
        name: &str,
        lane: Lane,
        files: &mut BTreeMap<String, FileEdit>,
    ) -> Option<String> {
        let edit = files.get_mut(self.file)?;
        let def = edit
            .layout
            .defs
            .iter()
            .find(|d| d.is_class && d.qual.len() == 1 && d.qual[0] == name)
            .cloned()?;
        edit.inserts.push(Insert {
            at: def.start,
            text: format!("{}@pytest.mark.{}\n", def.indent, lane.as_str()),
        });
        edit.needs_pytest = true;
        let reached = self.of_class(&format!("{}::{name}::", self.file), name);
        self.mark(&reached);
        Some(format!(
            "{}:{}: class {name}: @pytest.mark.{} ({})",
            self.file,
            def.line,
            lane.as_str(),
            self.rules_of(&reached)
        ))
    }

    fn function(
        &mut self,
        def_file: &str,
        line: u64,
        lane: Lane,
        files: &mut BTreeMap<String, FileEdit>,
    ) -> Option<String> {
        let edit = files.get_mut(def_file)?;
        let def = edit.layout.function_at(line).cloned()?;
        let text = format!("{}@pytest.mark.{}\n", def.indent, lane.as_str());
        let reached = self.of_def(def_file, line).to_vec();
        self.mark(&reached);
        if !edit.function_marks.insert((def.start, text.clone())) {
            return None;
        }
        edit.inserts.push(Insert {
            at: def.start,
            text,
        });
        edit.needs_pytest = true;
        let name = def.qual.join("::");
        Some(format!(
            "{def_file}:{line}: {name}: @pytest.mark.{} ({})",
            lane.as_str(),
            self.rules_of(&reached)
        ))
    }
}

/// The outermost class in a test's id: the part after the file, when more parts follow it.
fn outer_class(t: &ScanTest) -> Option<&str> {
    let mut parts = t.id.split("::").skip(1);
    let first = parts.next()?;
    parts.next()?;
    Some(first)
}

/// A test's definition: its defining file and the line of its name.
fn def_key(t: &ScanTest) -> (&str, u64) {
    (t.defining_file(), t.line)
}
