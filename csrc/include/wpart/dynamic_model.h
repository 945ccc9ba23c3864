/* wpart/dynamic_model.h -- part of wpart/dynamic.h (see there). */
#ifndef WPART_DYNAMIC_MODEL_H
#define WPART_DYNAMIC_MODEL_H

#include <stdint.h>
#include "wpart/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif
