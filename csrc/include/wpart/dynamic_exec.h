/* wpart/dynamic_exec.h -- part of wpart/dynamic.h (see there). */
#ifndef WPART_DYNAMIC_EXEC_H
#define WPART_DYNAMIC_EXEC_H

#include <stdint.h>
#include "wpart/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif
