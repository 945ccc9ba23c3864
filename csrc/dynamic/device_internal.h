/*
 * device_internal.h -- the device layer's draws (device.c) keyed by a list of
 * ids (part 1's key is (seed, pu, purpose, j)). Private.
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
