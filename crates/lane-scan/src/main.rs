fn main() {
    // Built in its own issue.
}
