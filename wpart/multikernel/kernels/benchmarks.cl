/*
 * The benchmarks of [Soldado 2016] as OpenCL C kernels, shipped with wpart.
 *
 * Every kernel works on one partition of the unit index space: `off` is the first unit of the
 * partition in the whole domain (the OFFSET trait), `n` its number of work items; the global
 * size may be rounded up to the work-group size, so every kernel guards `i < n`.
 */

/* ---------------------------------------------------------------- saxpy ---------------- */
__kernel void saxpy(const float a, __global const float *x, __global float *y, const uint n)
{
    uint i = get_global_id(0);
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}

/* ---------------------------------------------------------------- filter pipeline ------ */
/* Counter-based hash of the global pixel index: the noise does not depend on the split. */
inline uint wp_hash(uint x, uint seed)
{
    x ^= seed * 0x9E3779B9u;
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    x ^= x >> 16;
    return x;
}

/* Gaussian noise (sigma about 8): the sum of the 4 bytes of the hash is about normal with
 * mean 510 and sigma 147.8; centred and scaled by 8/148 with truncation towards zero. */
__kernel void gauss_noise(__global const uchar *in, __global uchar *out, const uint width,
                          const uint line_off, const uint n, const uint seed)
{
    uint i = get_global_id(0);
    if (i < n) {
        uint h = wp_hash(line_off * width + i, seed);
        int s = (int)(h & 255u) + (int)((h >> 8) & 255u) + (int)((h >> 16) & 255u) +
                (int)(h >> 24) - 510;
        int noise = (s * 8) / 148;
        int v = (int)in[i] + noise;
        out[i] = (uchar)clamp(v, 0, 255);
    }
}

__kernel void solarize(__global const uchar *in, __global uchar *out, const uint n)
{
    uint i = get_global_id(0);
    if (i < n) {
        uchar v = in[i];
        out[i] = v > 128 ? (uchar)(255 - v) : v;
    }
}

/* mirror each line horizontally */
__kernel void mirror(__global const uchar *in, __global uchar *out, const uint width,
                     const uint n)
{
    uint i = get_global_id(0);
    if (i < n) {
        uint row = i / width, col = i % width;
        out[i] = in[row * width + (width - 1 - col)];
    }
}

/* ---------------------------------------------------------------- segmentation --------- */
__kernel void segment(__global const uchar *in, __global uchar *out, const uint n)
{
    uint i = get_global_id(0);
    if (i < n) {
        uchar v = in[i];
        out[i] = v < 85 ? (uchar)0 : (v > 170 ? (uchar)255 : (uchar)128);
    }
}

/* ---------------------------------------------------------------- FFT ------------------ */
/* One radix-2 Stockham pass over every block of `N` complex values of the partition:
 * item i of block b combines x[i] and x[i + N/2] into y[out] and y[out + p], with
 * k = i mod p, out = 2 (i - k) + k and the twiddle exp(sign * i pi k / p). */
__kernel void fft_pass(__global const float2 *x, __global float2 *y, const uint N,
                       const uint p, const float sign, const uint n_items)
{
    uint g = get_global_id(0);
    if (g >= n_items) {
        return;
    }
    uint half_n = N >> 1;
    uint b = g / half_n, i = g % half_n;
    __global const float2 *xb = x + (size_t)b * N;
    __global float2 *yb = y + (size_t)b * N;
    uint k = i & (p - 1);
    float2 a0 = xb[i], a1 = xb[i + half_n];
    float c, s;
    s = sincos(sign * M_PI_F * (float)k / (float)p, &c);
    float2 t = (float2)(a1.x * c - a1.y * s, a1.x * s + a1.y * c);
    uint o = ((i - k) << 1) + k;
    yb[o] = a0 + t;
    yb[o + p] = a0 - t;
}

__kernel void scale_c(__global float2 *x, const float f, const uint n)
{
    uint i = get_global_id(0);
    if (i < n) {
        x[i] *= f;
    }
}

/* ---------------------------------------------------------------- N-body --------------- */
/* Direct sum for the bodies [off, off + n) of the partition against all N bodies (positions
 * in COPY mode: every device holds all of them); leapfrog step of dt. pos.w is the mass. */
__kernel void nbody_step(__global const float4 *pos_all, __global float4 *vel,
                         __global float4 *pos_out, const uint N, const uint off, const uint n,
                         const float dt, const float eps2)
{
    uint i = get_global_id(0);
    if (i >= n) {
        return;
    }
    float4 pi = pos_all[off + i];
    float3 acc = (float3)(0.0f, 0.0f, 0.0f);
    for (uint j = 0; j < N; j++) {
        float4 pj = pos_all[j];
        float3 d = pj.xyz - pi.xyz;
        float r2 = dot(d, d) + eps2;
        float inv = rsqrt(r2);
        acc += d * (pj.w * inv * inv * inv);
    }
    float4 v = vel[i];
    v.xyz += acc * dt;
    vel[i] = v;
    pos_out[i] = (float4)(pi.xyz + v.xyz * dt, pi.w);
}

/* an empty kernel: the launch overhead */
__kernel void nop(__global int *x) { }
