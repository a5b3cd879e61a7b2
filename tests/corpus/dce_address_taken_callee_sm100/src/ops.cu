// Two address-taken functions, each calling a helper of its own.
// `twice` (double (double)) is only stored through a pointer; the program
// makes no indirect call of its prototype: nvlink keeps `twice` but not
// `twice_inner`. `halve` (float (float)) sits in a table that the kernel
// calls through: `halve_inner` stays.
typedef double (*dop_t)(double);
typedef float (*fop_t)(float);
typedef long long (*lop_t)(long long, long long);
__device__ __noinline__ double twice_inner(double x) { return x * 2.0 + 1.0; }
__device__ double twice(double x) { return twice_inner(x) - 1.0; }
__device__ __noinline__ float halve_inner(float x) { return x * 0.5f; }
__device__ float halve(float x) { return halve_inner(x) + 0.25f; }
__device__ fop_t table[1] = { halve };
__global__ void k(dop_t* out, lop_t f, long long* r, float* v)
{
    *out = twice;
    *r = f(r[1], r[2]);
    v[0] = table[0](v[1]);
}
