/*
 * device_internal.h -- the device layer's draws (device.c) for other simulators of
 * wpart.dynamic that key their streams differently from part 1's (seed, pu, purpose, j), e.g.
 * the multi-kernel runs (mk_sim.c: seed; run, execution). Private.
 */
#ifndef WPART_DYN_DEVICE_INTERNAL_H
#define WPART_DYN_DEVICE_INTERNAL_H

#include <stdint.h>

/**
 * The device layer's log-normal noise factor exp(sigma z - sigma^2 / 2) (mean 1), z the first
 * normal draw of stream (seed; ids[0..n_ids)) of the core's generator (wpart/rng.h). 1.0 when
 * sigma == 0. wpart_dynamic_noise_lognormal is this with part 1's key (pu, purpose, j).
 */
double wpart_i_dyn_noise_lognormal_ids(uint64_t seed, const uint64_t *ids, int n_ids,
                                       double sigma);

#endif /* WPART_DYN_DEVICE_INTERNAL_H */
