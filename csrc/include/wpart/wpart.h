/* wpart/wpart.h -- umbrella header of the wpart core. */
#ifndef WPART_WPART_H
#define WPART_WPART_H

#define WPART_VERSION_MAJOR 0
#define WPART_VERSION_MINOR 1
#define WPART_VERSION_PATCH 0

#include "wpart/status.h"
#include "wpart/base.h"
#include "wpart/rng.h"
#include "wpart/milp.h"
#include "wpart/spatial.h"
#include "wpart/tasks.h"
#include "wpart/hetero.h"
#include "wpart/dynamic.h"

#endif /* WPART_WPART_H */
