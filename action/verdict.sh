#!/usr/bin/env bash
# The action's last step: exit with the gate's verdict (0 approve, 1 reject, 2 undecided).
set -euo pipefail
case ${LANES_EXIT:-} in
  0) echo "lanes: approve" ;;
  1) echo "lanes: reject (see the step summary)"; exit 1 ;;
  2) echo "lanes: the gate could not decide (see the gate step's log)"; exit 2 ;;
  *) echo "::error title=lanes::the gate step recorded no exit status"; exit 2 ;;
esac
