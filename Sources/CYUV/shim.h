#include <libyuv/convert_argb.h>
#include <libyuv/row.h>
#include <libyuv/scale_argb.h>
