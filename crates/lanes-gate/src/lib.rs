//! The `lanes-gate` wheel's package: no code of its own. Its binaries are the five tools'
//! `main.rs` files (see Cargo.toml), so `pip install lanes-gate` puts the same programs on
//! PATH that `cargo build` makes.

/// The binaries the wheel carries, in pipeline order.
pub const TOOLS: [&str; 5] = [
    "lane-scan",
    "lane-lock",
    "freeze-ledger",
    "lane-tally",
    "lane-gate",
];

#[cfg(test)]
mod tests {
    /// Every tool's main.rs is one of this package's binaries, and nothing else is.
    #[test]
    fn the_manifest_builds_every_tool() {
        let manifest = include_str!("../Cargo.toml");
        let bins: Vec<&str> = manifest
            .split("[[bin]]")
            .skip(1)
            .filter_map(|block| {
                block
                    .lines()
                    .find_map(|l| l.strip_prefix("name = \""))
                    .and_then(|n| n.strip_suffix('"'))
            })
            .collect();
        assert_eq!(bins, super::TOOLS);
        for tool in super::TOOLS {
            assert!(
                manifest.contains(&format!("path = \"../{tool}/src/main.rs\"")),
                "{tool}'s main.rs is not the wheel's {tool}"
            );
        }
    }
}
