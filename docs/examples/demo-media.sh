#!/usr/bin/env bash
# The demo's media, into DIR (/tmp/vitrine-demo): the photo (a JPEG) and the animated
# banner (a WebP of three messages) from docs/examples/media, and a 4-second video loop
# made here by GStreamer (a ball on blue, MPEG-4 in AVI: gstreamer1.0-libav's encoder).
set -euo pipefail
dir=${1:-/tmp/vitrine-demo}
media="$(dirname "$0")/media"
mkdir -p "$dir"
cp "$media/photo.jpg" "$media/banner.webp" "$dir/"
if [ ! -s "$dir/loop.avi" ]; then
    gst-launch-1.0 -q videotestsrc pattern=ball num-buffers=120 background-color=0xff1b4965 foreground-color=0xffffd166 \
        ! video/x-raw,width=480,height=270,framerate=30/1 ! videoconvert ! avenc_mpeg4 bitrate=1500000 \
        ! avimux ! filesink location="$dir/loop.avi.part"
    mv "$dir/loop.avi.part" "$dir/loop.avi"
fi
