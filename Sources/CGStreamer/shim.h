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
#include <sys/mman.h>
#include <sys/syscall.h>
#include <fcntl.h>

/* (glibc declares these only with _GNU_SOURCE, which would change its structs under
   Swift's Glibc module) */
#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001U
#define MFD_ALLOW_SEALING 0x0002U
#endif
#ifndef F_ADD_SEALS
#define F_ADD_SEALS 1033
#define F_SEAL_SEAL 0x0001
#define F_SEAL_SHRINK 0x0002
#define F_SEAL_GROW 0x0004
#endif
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/allocators/allocators.h>
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
 * 4:2:0 Y′CbCr frames (I420, or NV12 where the decoder gives NV12: the compositor
 * converts them as it draws them) of width × height, letterboxed in black when `letterbox` (else stretched); `size` is the
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
        "%s add-borders=%s%s ! capsfilter name=vitrine-size caps=\"video/x-raw,format={I420,NV12},width=%d,height=%d,pixel-aspect-ratio=1/1\" ! "
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
    char description[128];
    snprintf(description, sizeof description, "video/x-raw,format={I420,NV12},width=%d,height=%d,pixel-aspect-ratio=1/1", width, height);
    GstCaps *caps = gst_caps_from_string(description);
    if (!caps) return;
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

/* A frame mapped for reading, kept until vitrine_frame_unmap. */
typedef struct {
    GstVideoFrame frame;
} VitrineMappedFrame;

/* Where a mapped frame's pixels lie and how to read them. `format`: 0 BGRA (one plane),
 * 1 I420 (Y, U, V), 2 NV12 (Y, interleaved UV). `matrix`: 0 BT.601, 1 BT.709, 2 BT.2020.
 * `full_range`: Y′CbCr spans 0…255. */
typedef struct {
    uint8_t *data[3];
    int stride[3];
    int format, matrix, full_range, width, height;
} VitrinePlanes;

/* Maps `sample`'s frame into `planes`; NULL when it cannot be mapped or is of another
 * format. The mapping holds the frame's buffer, not the sample: appsink reuses the sample
 * it hands out, and sets the caps of a new segment on it (after a loop's seek), which
 * needs it to be held by appsink alone. */
static inline VitrineMappedFrame *vitrine_sample_map(GstSample *sample, VitrinePlanes *planes) {
    GstBuffer *buffer = gst_sample_get_buffer(sample);
    GstCaps *caps = gst_sample_get_caps(sample);
    GstVideoInfo info;
    if (!buffer || !caps || !gst_video_info_from_caps(&info, caps)) return NULL;
    GstVideoFormat format = GST_VIDEO_INFO_FORMAT(&info);
    if (format != GST_VIDEO_FORMAT_BGRA && format != GST_VIDEO_FORMAT_I420 && format != GST_VIDEO_FORMAT_NV12) return NULL;
    VitrineMappedFrame *mapped = g_new0(VitrineMappedFrame, 1);
    if (!gst_video_frame_map(&mapped->frame, &info, buffer, GST_MAP_READ)) {
        g_free(mapped);
        return NULL;
    }
    if (format == GST_VIDEO_FORMAT_BGRA && GST_VIDEO_FRAME_PLANE_STRIDE(&mapped->frame, 0) % 4 != 0) {
        gst_video_frame_unmap(&mapped->frame);
        g_free(mapped);
        return NULL;
    }
    memset(planes, 0, sizeof *planes);
    for (guint i = 0; i < GST_VIDEO_FRAME_N_PLANES(&mapped->frame) && i < 3; i++) {
        planes->data[i] = (uint8_t *)GST_VIDEO_FRAME_PLANE_DATA(&mapped->frame, i);
        planes->stride[i] = GST_VIDEO_FRAME_PLANE_STRIDE(&mapped->frame, i);
    }
    planes->format = format == GST_VIDEO_FORMAT_BGRA ? 0 : format == GST_VIDEO_FORMAT_I420 ? 1 : 2;
    switch (info.colorimetry.matrix) {
    case GST_VIDEO_COLOR_MATRIX_BT709:
    case GST_VIDEO_COLOR_MATRIX_SMPTE240M: planes->matrix = 1; break;
    case GST_VIDEO_COLOR_MATRIX_BT2020: planes->matrix = 2; break;
    case GST_VIDEO_COLOR_MATRIX_BT601:
    case GST_VIDEO_COLOR_MATRIX_FCC: planes->matrix = 0; break;
    default: planes->matrix = GST_VIDEO_INFO_HEIGHT(&info) > 576 ? 1 : 0; break;
    }
    planes->full_range = info.colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255;
    planes->width = GST_VIDEO_FRAME_WIDTH(&mapped->frame);
    planes->height = GST_VIDEO_FRAME_HEIGHT(&mapped->frame);
    return mapped;
}

/* Unmaps a frame mapped by vitrine_sample_map (dropping its reference to the buffer). */
static inline void vitrine_frame_unmap(VitrineMappedFrame *mapped) {
    gst_video_frame_unmap(&mapped->frame);
    g_free(mapped);
}

/* Frames in shared memory: an allocator of memfds (sealed against shrinking and growing,
 * so that another process may map them without fear of faults), offered by the appsink
 * to what writes its frames (the converter, or the decoder), so that each frame is written
 * where the decoder helper hands it over from. */
static GstMemory *vitrine_memfd_alloc(GstAllocator *allocator, gsize size, GstAllocationParams *params) {
    gsize align = params ? params->align : 0;
    gsize prefix = params ? params->prefix : 0;
    gsize total = prefix + size + (params ? params->padding : 0) + align;
    int fd = (int)syscall(SYS_memfd_create, "vitrine-video-frame", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return NULL;
    if (ftruncate(fd, (off_t)total) != 0 || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
        close(fd);
        return NULL;
    }
    GstMemory *memory = gst_fd_allocator_alloc(allocator, fd, total, GST_FD_MEMORY_FLAG_KEEP_MAPPED);
    if (!memory) {
        close(fd);
        return NULL;
    }
    gst_memory_resize(memory, (gssize)prefix, size);
    /* Mapped once for reading and writing and kept so: mapped for one then the other, a
     * kept fd mapping is mprotect()ed to each in turn (8 MB of page tables and a TLB
     * shootdown twice a 1080p frame). */
    GstMapInfo both;
    if (gst_memory_map(memory, &both, GST_MAP_READWRITE)) gst_memory_unmap(memory, &both);
    return memory;
}

static void vitrine_memfd_allocator_class_init(gpointer klass, gpointer data) {
    (void)data;
    GST_ALLOCATOR_CLASS(klass)->alloc = vitrine_memfd_alloc;
}

/* The memfd allocator's type, registered once for the process. */
static inline GType vitrine_memfd_allocator_type(void) {
    static gsize type = 0;
    if (g_once_init_enter(&type)) {
        GType known = g_type_from_name("VitrineMemfdAllocator");
        if (!known) {
            GTypeQuery query;
            g_type_query(GST_TYPE_FD_ALLOCATOR, &query);
            known = g_type_register_static_simple(GST_TYPE_FD_ALLOCATOR, "VitrineMemfdAllocator", query.class_size,
                vitrine_memfd_allocator_class_init, query.instance_size, NULL, (GTypeFlags)0);
        }
        g_once_init_leave(&type, known);
    }
    return (GType)type;
}

/* Answers the allocation query at the appsink — the converter's, or the decoder's when the
 * converter passes frames through — with a pool of memfd frames. The pool is not bounded
 * (gst-libav's decoders refuse a pool of fewer than 32 and copy into their own): the
 * frames out at once are, by the appsink's queue and the frames the reader holds. */
static GstPadProbeReturn vitrine_video_offer_pool(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    (void)pad;
    (void)data;
    GstQuery *query = GST_PAD_PROBE_INFO_QUERY(info);
    if (!query || GST_QUERY_TYPE(query) != GST_QUERY_ALLOCATION) return GST_PAD_PROBE_OK;
    GstCaps *caps = NULL;
    gboolean needed = FALSE;
    gst_query_parse_allocation(query, &caps, &needed);
    GstVideoInfo video;
    if (!caps || !gst_video_info_from_caps(&video, caps)) return GST_PAD_PROBE_OK;
    GstAllocator *allocator = (GstAllocator *)g_object_new(vitrine_memfd_allocator_type(), NULL);
    GstBufferPool *pool = gst_video_buffer_pool_new();
    GstStructure *config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, caps, (guint)video.size, 1, 0);
    gst_buffer_pool_config_set_allocator(config, allocator, NULL);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    gboolean configured = gst_buffer_pool_set_config(pool, config);
    if (configured) {
        gst_query_add_allocation_pool(query, pool, (guint)video.size, 1, 0);
        gst_query_add_allocation_param(query, allocator, NULL);
        gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, NULL);
    }
    gst_object_unref(pool);
    gst_object_unref(allocator);
    return configured ? GST_PAD_PROBE_HANDLED : GST_PAD_PROBE_OK;
}

/* Has `sink` offer what writes its frames a pool of memfd frames. */
static inline void vitrine_video_share_frames(GstElement *sink) {
    GstPad *pad = gst_element_get_static_pad(sink, "sink");
    if (!pad) return;
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM, vitrine_video_offer_pool, NULL, NULL);
    gst_object_unref(pad);
}

/* Where a mapped frame's pixels lie when they are in a memfd of the pool above: its
 * descriptor (owned by the frame's memory), the byte offset of the first pixel in it and
 * its size; 0 when they lie elsewhere. */
static inline int vitrine_frame_memfd(VitrineMappedFrame *mapped, int *fd, size_t *offset, size_t *size) {
    GstBuffer *buffer = mapped->frame.buffer;
    if (gst_buffer_n_memory(buffer) != 1) return 0;
    GstMemory *memory = gst_buffer_peek_memory(buffer, 0);
    if (!gst_is_fd_memory(memory) || !G_TYPE_CHECK_INSTANCE_TYPE(memory->allocator, vitrine_memfd_allocator_type())) return 0;
    gsize start = 0, maximum = 0;
    gst_memory_get_sizes(memory, &start, &maximum);
    GstMapInfo whole;
    if (!gst_memory_map(memory, &whole, GST_MAP_READ)) return 0;
    const uint8_t *base = whole.data - start;
    gst_memory_unmap(memory, &whole);
    const uint8_t *pixels = (const uint8_t *)GST_VIDEO_FRAME_PLANE_DATA(&mapped->frame, 0);
    if (pixels < base || pixels >= base + maximum) return 0;
    *fd = gst_fd_memory_get_fd(memory);
    *offset = (size_t)(pixels - base);
    *size = maximum;
    return 1;
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
