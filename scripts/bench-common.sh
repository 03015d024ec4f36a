# Sourced by the bench scripts (after `repo` is set): bench_build NAME GIVEN builds the release
# binaries through `make build` (nothing to do when they are up to date, so a binary left by a
# plain `cargo build` or an older commit is not measured by mistake) unless GIVEN, the path the
# caller named in the environment, is set; then it measures that one as it is. It exports
# BENCH_BUILD, the line each table's header prints: which build is measured.
bench_build() {
    local name=$1 given=$2 flags extra
    if [[ -n $given ]]; then
        export BENCH_BUILD="build: $given, as given"
        return
    fi
    echo "$name: make build (the release binaries; nothing to do when they are up to date)" >&2
    make -C "$repo" -s --no-print-directory build >&2 \
        || { echo "$name: error: make build failed" >&2; exit 2; }
    flags=$(make -C "$repo" -s --no-print-directory rustflags 2>/dev/null)
    extra=$(printf '%s\n' $flags | grep -v -e '^-Cprofile-use=' -e '^-Cllvm-args=-no-pgo-warn-mismatch$' \
        | tr '\n' ' ' | sed 's/ $//' || true)
    if [[ $flags == *-Cprofile-use=* ]]; then
        BENCH_BUILD="build: make build, with the PGO profile (pgo/lanes.profdata)"
    else
        BENCH_BUILD="build: make build, without a profile"
    fi
    [[ -z $extra ]] || BENCH_BUILD+=", RUSTFLAGS $extra"
    export BENCH_BUILD
}
