/*
 * wpart/dynamic.h -- run-time balancing (PLB-HAC; the multi-kernel family shares the device layer).
 *
 * One decision protocol (dynamic_balancer.h), one event engine and device layer
 * (dynamic_sim.h), one set of real-execution kernels (dynamic_exec.h), and the performance
 * models with the equal-finish-time block sizing they drive (dynamic_model.h).
 */
#ifndef WPART_DYNAMIC_H
#define WPART_DYNAMIC_H

#include "wpart/dynamic_model.h"
#include "wpart/dynamic_balancer.h"
#include "wpart/dynamic_plbhac.h"
#include "wpart/dynamic_baselines.h"
#include "wpart/dynamic_sim.h"
#include "wpart/dynamic_exec.h"

#endif /* WPART_DYNAMIC_H */
