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
review=${LANES_INPUT_ACK_REVIEW:-true}
event=${GITHUB_EVENT_PATH:-}
summary=${GITHUB_STEP_SUMMARY:?GITHUB_STEP_SUMMARY is not set}

# The pull request's base commit and, on a pull_request_review event, the acknowledgment an
# approving review gives: by someone the repository trusts (owner, member, collaborator), naming
# the commit the review approved (the gate ignores it, and says so, on any other head). From the
# event (JSON, read with a real parser); one fact per line.
facts=$(python3 - "$event" "$review" <<'PY'
import json, sys
path, review_on = sys.argv[1], sys.argv[2] == "true"
try:
    with open(path, encoding="utf-8") as f:
        event = json.load(f)
except (OSError, ValueError) as e:
    print(f"error\ncannot read the event {path or '(GITHUB_EVENT_PATH is not set)'}: {e}")
    sys.exit()
pr = event.get("pull_request") if isinstance(event, dict) else None
if not isinstance(pr, dict):
    print("none\n\n")
    sys.exit()
base = (pr.get("base") or {}).get("sha") or ""
review = event.get("review")
ack = ""
if review_on and isinstance(review, dict) \
        and str(review.get("state", "")).lower() == "approved" \
        and review.get("author_association") in ("OWNER", "MEMBER", "COLLABORATOR"):
    login = (review.get("user") or {}).get("login") or "?"
    commit = review.get("commit_id") or ""
    ack = f"approving review by @{login} of #{pr.get('number') or '?'} at {commit}"
print(f"pr\n{base}\n{' '.join(ack.split())}")
PY
) || fail "python3 could not read the event"
line() { sed -n "${1}p" <<<"$facts"; }
kind=$(line 1)
event_base=$(line 2)
ack=$(line 3)
[ "$kind" != error ] || fail "$event_base"

base=${LANES_INPUT_BASE:-$event_base}
[ -n "$base" ] || fail "no base commit: the event is not a pull request; set the action's base input"

args=(--base "$base" --today "$today" --out "$out" --format github)
# The acknowledgment comes from the review only, never from the environment or the tree.
unset LANES_ACK
if [ -n "${ack:-}" ]; then
  args+=(--ack "$ack")
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
