#!/usr/bin/env bash
# The action's install step: lanes-gate from its wheel into a venv of its own under
# $RUNNER_TEMP; only the five binaries go on PATH (the venv's python does not, so the gate
# still finds the project's python and pytest).
set -euo pipefail

fail() {
  echo "::error title=lanes install::$*"
  echo "lanes install: error: $*" >&2
  exit 2
}

tools=(lane-scan lane-lock freeze-ledger lane-tally lane-gate)
action=${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set: run this as the lanes action}
tmp=${RUNNER_TEMP:?RUNNER_TEMP is not set: run this as the lanes action}
version=${LANES_VERSION:-}
if [ -z "$version" ]; then
  # The action's own version: the workspace's, in the Cargo.toml beside action.yml.
  version=$(sed -n '/^\[workspace\.package\]/,/^\[/s/^version = "\([^"]*\)"$/\1/p' "$action/Cargo.toml")
  [ -n "$version" ] || fail "$action/Cargo.toml: expected version = \"X.Y.Z\" under [workspace.package]"
fi
case $version in
  *[!0-9A-Za-z.+!-]* | "") fail "input version: expected a version such as 0.1.0, found '$version'" ;;
esac
python=$(command -v python3 || command -v python || true)
[ -n "$python" ] || fail "no python3 on PATH (run actions/setup-python first)"

venv="$tmp/lanes-venv"
bin="$tmp/lanes-bin"
rm -rf "$venv" "$bin"
"$python" -m venv "$venv" || fail "$python -m venv $venv failed"
args=(--quiet --disable-pip-version-check --only-binary lanes-gate)
if [ -n "${LANES_FIND_LINKS:-}" ]; then
  args+=(--find-links "$LANES_FIND_LINKS")
fi
case ${LANES_FROM_SOURCE:-false} in
  true)
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$action" \
      || fail "pip could not build lanes-gate from $action (a source build needs Rust)"
    ;;
  false)
    "$venv/bin/python" -m pip install "${args[@]}" "lanes-gate==$version" \
      || fail "pip could not install the lanes-gate $version wheel (wheels are built for Linux x86-64; elsewhere set the input source: true, which needs Rust)"
    ;;
  *) fail "input source: expected true or false, found '$LANES_FROM_SOURCE'" ;;
esac
mkdir -p "$bin"
for t in "${tools[@]}"; do
  [ -x "$venv/bin/$t" ] || fail "the lanes-gate $version wheel has no $t"
  ln -s "$venv/bin/$t" "$bin/$t"
done
echo "$bin" >> "${GITHUB_PATH:?GITHUB_PATH is not set}"
"$bin/lane-gate" --version
