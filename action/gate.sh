#!/usr/bin/env bash
# The action's gate step: lane-gate --base on the pull request's base, the verdict into the step
# summary, its annotations, the outputs for the upload and verdict steps (and for a workflow's
# own comment step). It exits 0 whatever the verdict (the verdict step exits with it, after the
# upload).
#
# lane-gate fits its output to GitHub's limits itself: --format github prints at most 10 error
# and 10 warning annotations (the last of each level sums up the rest), and comment.md holds the
# markdown verdict cut under a pull-request comment's 65,536 characters with a line saying the
# rest is in the artifact (verdict.md is cut under the step summary's 1 MiB). Nothing here cuts
# again.
set -euo pipefail

output() { echo "$1=$2" >> "${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"; }
fail() {
  echo "::error title=lanes::$*"
  echo "lanes: error: $*" >&2
  output verdict error
  output exit-code 2
  exit 0
}

out=${LANES_INPUT_OUT:-out/lanes}
today=${LANES_INPUT_TODAY:-$(date -u +%F)}
label=${LANES_INPUT_ACK_LABEL:-}
event=${GITHUB_EVENT_PATH:-}
summary=${GITHUB_STEP_SUMMARY:?GITHUB_STEP_SUMMARY is not set}

# The pull request's base commit, number and whether it carries the acknowledgment label, from
# the event (JSON, read with a real parser).
facts=$(python3 - "$event" "$label" <<'PY'
import json, sys
path, label = sys.argv[1], sys.argv[2]
try:
    with open(path, encoding="utf-8") as f:
        event = json.load(f)
except (OSError, ValueError) as e:
    print(f"error|cannot read the event {path or '(GITHUB_EVENT_PATH is not set)'}: {e}")
    sys.exit()
pr = event.get("pull_request") if isinstance(event, dict) else None
if not isinstance(pr, dict):
    print("none|||no")
    sys.exit()
base = (pr.get("base") or {}).get("sha") or ""
number = pr.get("number") or ""
labels = {l.get("name") for l in pr.get("labels") or [] if isinstance(l, dict)}
print(f"pr|{base}|{number}|{'yes' if label and label in labels else 'no'}")
PY
) || fail "python3 could not read the event"
IFS="|" read -r kind event_base number labelled <<<"$facts"
[ "$kind" != error ] || fail "${facts#error|}"

base=${LANES_INPUT_BASE:-$event_base}
[ -n "$base" ] || fail "no base commit: the event is not a pull request; set the action's base input"

args=(--base "$base" --today "$today" --out "$out" --format github)
# The acknowledgment comes from the label only, never from the environment or the tree.
unset LANES_ACK
if [ "${labelled:-no}" = yes ]; then
  args+=(--ack "label $label on #$number")
fi
if [ -n "${LANES_INPUT_PYTHON:-}" ]; then
  args+=(--python "$LANES_INPUT_PYTHON")
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "lane-gate ${args[*]}"
set +e
lane-gate "${args[@]}" >"$work/annotations" 2>"$work/stderr"
code=$?
set -e
cat "$work/stderr" >&2

# The annotations, as lane-gate capped them.
cat "$work/annotations"

if [ "$code" -eq 2 ]; then
  reason=$(head -n 1 "$work/stderr")
  echo "::error title=lane-gate::${reason:-lane-gate could not decide (exit 2)}"
fi

# The step summary: the verdict as a pull request would show it (comment.md, which names the
# artifact that holds the rest when it had to be cut).
comment_md="$out/comment.md"
if [ -f "$comment_md" ] && [ "$code" -ne 2 ]; then
  cat "$comment_md" >>"$summary"
else
  {
    echo "### lane-gate: could not decide (exit $code)"
    echo
    echo '```'
    head -c 4000 "$work/stderr"
    echo '```'
  } >>"$summary"
fi

case $code in
  0) output verdict approve ;;
  1) output verdict reject ;;
  *) output verdict error ;;
esac
output exit-code "$code"
if [ -d "$out" ]; then
  output out "$(cd "$out" && pwd)"
fi
if [ -f "$comment_md" ] && [ "$code" -ne 2 ]; then
  output comment "$(cd "$out" && pwd)/comment.md"
fi
if [ -f "$out/verdict.sarif" ]; then
  output sarif "$(cd "$out" && pwd)/verdict.sarif"
fi
