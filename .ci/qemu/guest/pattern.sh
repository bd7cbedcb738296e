#!/bin/sh
# The harness's own guest: pattern 1 (SetCrtc), page flips, pattern 2. See drm-pattern.c.
exec drm-pattern /dev/dri/card0
