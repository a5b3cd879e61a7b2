#!/usr/bin/env bash
# No inputs: nvlink is run with only -arch.
set -euo pipefail
