#ifndef VITRINE_CGSTREAMER_SHIM_H
#define VITRINE_CGSTREAMER_SHIM_H

/* GStreamer for VitrineVideo's players. Swift cannot call varargs functions
 * (g_object_set) or GStreamer's macros, so what a player needs of them is here:
 * building its pipeline, taking errors off its bus, mapping a decoded frame, resizing. */

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

/* playbin's GstPlayFlags (not in a public header). */
enum { VITRINE_PLAY_VIDEO = 1 << 0, VITRINE_PLAY_AUDIO = 1 << 1, VITRINE_PLAY_TEXT = 1 << 2, VITRINE_PLAY_SOFT_VOLUME = 1 << 4 };

/* gst-libav's decoders with direct rendering on allocate a frame per decoded picture
 * when a converter follows them, freed after it: in the daemon, whose large blocks are
 * their own mappings (ProcessMemory), each is a fresh mapping to fault in and zero, 1.5 ms
 * of a 1080p frame. Off, FFmpeg keeps its frames in its own pool. */
static void vitrine_video_element_added(GstBin *bin, GstBin *sub, GstElement *element, gpointer data) {
    (void)bin; (void)sub; (void)data;
    GstElementFactory *factory = gst_element_get_factory(element);
    const char *name = factory ? GST_OBJECT_NAME(factory) : NULL;
    if (name && strncmp(name, "avdec_", 6) == 0 && g_object_class_find_property(G_OBJECT_GET_CLASS(element), "direct-rendering"))
        g_object_set(element, "direct-rendering", FALSE, NULL);
}

/* A playbin playing `uri` into an appsink (returned in `sink`, a new reference) of
 * BGRA frames (premultiplied ARGB32 on a little-endian machine: video is opaque) of
 * width × height, letterboxed in black when `letterbox` (else stretched); `size` is the
 * capsfilter that sets that size (a new reference, for vitrine_video_set_size). Audio: 0
 * off (no audio branch), 1 muted (into a fakesink, no device), 2 to the default sink. The appsink keeps at most
 * `queued` frames and blocks the decoder when full (its reader paces it), and does not
 * sync to GStreamer's clock. NULL with `error` set when an element is missing. */
static inline GstElement *vitrine_video_pipeline(const char *uri, int width, int height, int letterbox, int audio, int queued, GstElement **sink, GstElement **size, GError **error) {
    GstElement *playbin = gst_element_factory_make("playbin", NULL);
    if (!playbin) {
        g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_MISSING_PLUGIN, "GStreamer has no playbin element (is gstreamer1.0-plugins-base installed?)");
        return NULL;
    }
    /* GStreamer 1.22's videoconvertscale scales and converts in one pass (a fifth faster
     * than videoscale then videoconvert); older ones have only the pair. */
    GstElementFactory *one = gst_element_factory_find("videoconvertscale");
    if (one) gst_object_unref(one);
    char description[512];
    snprintf(description, sizeof description,
        "%s add-borders=%s%s ! capsfilter name=vitrine-size caps=\"video/x-raw,format=BGRA,width=%d,height=%d,pixel-aspect-ratio=1/1\" ! "
        "appsink name=vitrine-frames max-buffers=%d drop=false sync=false enable-last-sample=false",
        one ? "videoconvertscale" : "videoscale", letterbox ? "true" : "false", one ? "" : " ! videoconvert", width, height, queued);
    GstElement *bin = gst_parse_bin_from_description(description, TRUE, error);
    if (!bin) {
        gst_object_unref(playbin);
        return NULL;
    }
    *sink = gst_bin_get_by_name(GST_BIN(bin), "vitrine-frames");
    *size = gst_bin_get_by_name(GST_BIN(bin), "vitrine-size");
    guint flags = 0;
    g_object_get(playbin, "flags", &flags, NULL);
    flags &= ~(guint)VITRINE_PLAY_TEXT;
    if (audio == 0) flags &= ~(guint)(VITRINE_PLAY_AUDIO | VITRINE_PLAY_SOFT_VOLUME);
    else flags |= VITRINE_PLAY_AUDIO | VITRINE_PLAY_SOFT_VOLUME;
    g_object_set(playbin, "uri", uri, "video-sink", bin, "flags", flags, NULL);
    /* Muted: decoded and paced by the clock as heard sound is, into no device. */
    GstElement *silence = audio == 1 ? gst_element_factory_make("fakesink", NULL) : NULL;
    if (silence) {
        g_object_set(silence, "sync", TRUE, NULL);
        g_object_set(playbin, "audio-sink", silence, NULL);
    }
    g_signal_connect(playbin, "deep-element-added", G_CALLBACK(vitrine_video_element_added), NULL);
    return playbin;
}

/* Asks for frames of width × height from now on: the capsfilter made by
 * vitrine_video_pipeline takes the new caps and the scaler renegotiates at its next
 * frame (the frames already queued keep their size). */
static inline void vitrine_video_set_size(GstElement *size, int width, int height) {
    GstCaps *caps = gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING, "BGRA", "width", G_TYPE_INT, width, "height", G_TYPE_INT, height,
        "pixel-aspect-ratio", GST_TYPE_FRACTION, 1, 1, NULL);
    g_object_set(size, "caps", caps, NULL);
    gst_caps_unref(caps);
}

/* Wakes a reader that polls: each new frame, the end of the stream and each bus message
 * add 1 to the eventfd `fd` (on GStreamer's threads). */
static void vitrine_video_wake(int fd) {
    uint64_t one = 1;
    ssize_t written = write(fd, &one, sizeof one);
    (void)written;
}

static GstFlowReturn vitrine_video_new_sample(GstAppSink *sink, gpointer fd) {
    (void)sink;
    vitrine_video_wake(GPOINTER_TO_INT(fd));
    return GST_FLOW_OK;
}

static void vitrine_video_eos(GstAppSink *sink, gpointer fd) {
    (void)sink;
    vitrine_video_wake(GPOINTER_TO_INT(fd));
}

static GstBusSyncReply vitrine_video_bus_message(GstBus *bus, GstMessage *message, gpointer fd) {
    (void)bus;
    (void)message;
    vitrine_video_wake(GPOINTER_TO_INT(fd));
    return GST_BUS_PASS;
}

/* A close-on-exec, non-blocking eventfd for vitrine_video_watch; -1 with errno set. */
static inline int vitrine_video_wakeup_new(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

/* Has `sink`'s frames, its end of stream and `bus`'s messages wake the eventfd `fd`. */
static inline void vitrine_video_watch(GstElement *sink, GstBus *bus, int fd) {
    GstAppSinkCallbacks callbacks = {0};
    callbacks.eos = vitrine_video_eos;
    callbacks.new_sample = vitrine_video_new_sample;
    gst_app_sink_set_callbacks(GST_APP_SINK(sink), &callbacks, GINT_TO_POINTER(fd), NULL);
    gst_bus_set_sync_handler(bus, vitrine_video_bus_message, GINT_TO_POINTER(fd), NULL);
}

/* The next error, end of stream or finished state change on `bus`, without waiting;
 * NULL when none. */
static inline GstMessage *vitrine_bus_pop(GstBus *bus) {
    return gst_bus_pop_filtered(bus, (GstMessageType)(GST_MESSAGE_ERROR | GST_MESSAGE_EOS | GST_MESSAGE_ASYNC_DONE));
}

static inline int vitrine_message_is_error(GstMessage *m) { return GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR; }
static inline int vitrine_message_is_eos(GstMessage *m) { return GST_MESSAGE_TYPE(m) == GST_MESSAGE_EOS; }

/* An error message's text and debug string (g_free both). */
static inline void vitrine_message_error(GstMessage *m, char **text, char **debug) {
    GError *error = NULL;
    gst_message_parse_error(m, &error, debug);
    *text = g_strdup(error ? error->message : "unknown error");
    if (error) g_error_free(error);
}

static inline void vitrine_message_unref(GstMessage *m) { gst_message_unref(m); }
static inline void vitrine_sample_unref(GstSample *s) { gst_sample_unref(s); }
static inline void vitrine_object_unref(gpointer o) { gst_object_unref(o); }

/* A sample's stream time in nanoseconds; -1 when it has none. */
static inline int64_t vitrine_sample_time(GstSample *sample) {
    GstBuffer *buffer = gst_sample_get_buffer(sample);
    if (!buffer || !GST_BUFFER_PTS_IS_VALID(buffer)) return -1;
    const GstSegment *segment = gst_sample_get_segment(sample);
    guint64 pts = GST_BUFFER_PTS(buffer);
    if (segment && segment->format == GST_FORMAT_TIME) {
        guint64 t = gst_segment_to_stream_time(segment, GST_FORMAT_TIME, pts);
        if (t != GST_CLOCK_TIME_NONE) return (int64_t)t;
    }
    return (int64_t)pts;
}

/* A BGRA frame mapped for reading, kept until vitrine_frame_unmap. */
typedef struct {
    GstVideoFrame frame;
} VitrineMappedFrame;

/* Maps `sample`'s frame: its first pixel, its stride in pixels and its size; NULL when it
 * cannot be mapped. The mapping holds the frame's buffer, not the sample: appsink reuses
 * the sample it hands out, and sets the caps of a new segment on it (after a loop's seek),
 * which needs it to be held by appsink alone. */
static inline VitrineMappedFrame *vitrine_sample_map(GstSample *sample, uint32_t **pixels, int *stride, int *width, int *height) {
    GstBuffer *buffer = gst_sample_get_buffer(sample);
    GstCaps *caps = gst_sample_get_caps(sample);
    GstVideoInfo info;
    if (!buffer || !caps || !gst_video_info_from_caps(&info, caps)) return NULL;
    VitrineMappedFrame *mapped = g_new0(VitrineMappedFrame, 1);
    if (!gst_video_frame_map(&mapped->frame, &info, buffer, GST_MAP_READ)) {
        g_free(mapped);
        return NULL;
    }
    if (GST_VIDEO_FRAME_PLANE_STRIDE(&mapped->frame, 0) % 4 != 0) {
        gst_video_frame_unmap(&mapped->frame);
        g_free(mapped);
        return NULL;
    }
    *pixels = (uint32_t *)GST_VIDEO_FRAME_PLANE_DATA(&mapped->frame, 0);
    *stride = GST_VIDEO_FRAME_PLANE_STRIDE(&mapped->frame, 0) / 4;
    *width = GST_VIDEO_FRAME_WIDTH(&mapped->frame);
    *height = GST_VIDEO_FRAME_HEIGHT(&mapped->frame);
    return mapped;
}

/* Unmaps a frame mapped by vitrine_sample_map (dropping its reference to the buffer). */
static inline void vitrine_frame_unmap(VitrineMappedFrame *mapped) {
    gst_video_frame_unmap(&mapped->frame);
    g_free(mapped);
}

/* A flushing, accurate seek to `nanoseconds`; 0 when GStreamer refused it. */
static inline int vitrine_seek(GstElement *pipeline, int64_t nanoseconds) {
    return gst_element_seek_simple(pipeline, GST_FORMAT_TIME, (GstSeekFlags)(GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE), nanoseconds);
}

/* The stream's duration in nanoseconds; -1 when unknown (a live stream, or not yet). */
static inline int64_t vitrine_duration(GstElement *pipeline) {
    gint64 d = -1;
    if (!gst_element_query_duration(pipeline, GST_FORMAT_TIME, &d)) return -1;
    return d;
}

/* Initializes GStreamer (a registry scan when the registry is cold) and loads the plugins
 * of the elements vitrine_video_pipeline makes in its caller's thread, so that making a
 * player later costs no scan and no plugin load. */
static inline void vitrine_gstreamer_prepare(void) {
    gst_init(NULL, NULL);
    const char *names[] = {"playbin", "videoconvertscale", "videoscale", "videoconvert", "capsfilter", "appsink"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        GstElementFactory *factory = gst_element_factory_find(names[i]);
        if (!factory) continue;
        GstPluginFeature *loaded = gst_plugin_feature_load(GST_PLUGIN_FEATURE(factory));
        if (loaded) gst_object_unref(loaded);
        gst_object_unref(factory);
    }
}

/* A path as a file:// URI (g_free it); NULL on error. */
static inline char *vitrine_file_uri(const char *path) { return gst_filename_to_uri(path, NULL); }

#endif
