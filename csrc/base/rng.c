/* rng.c -- the core's one generator (wpart/rng.h): the normal draw and the log-normal factor
 * (the rest is inline). */
#include <math.h>

#include "wpart/rng.h"

double wpart_rng_normal(wpart_rng_t *g)
{
    double u1 = 1.0 - wpart_rng_uniform(g); /* (0, 1]: log(u1) is finite */
    double u2 = wpart_rng_uniform(g);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

double wpart_rng_lognormal_ids(uint64_t seed, const uint64_t *ids, int n_ids, double sigma)
{
    if (sigma == 0) {
        return 1.0;
    }
    wpart_rng_t g;
    wpart_rng_stream(&g, seed, ids, n_ids);
    double z = wpart_rng_normal(&g);
    return exp(sigma * z - 0.5 * sigma * sigma);
}
