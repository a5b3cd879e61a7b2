// A kernel limited to 32 registers calls b.cu's 140-register function and
// reads a table nothing defines; another kernel calls a function nothing
// defines. nvlink reports both undefined references, then the max-regcount
// error, then (-v) the properties, and fails.
__device__ float heavy(const float* x);
extern __device__ int lookup[32];
extern __device__ int missing_fn(int);
__global__ void __maxnreg__(32) k(const float* x, float* out)
{
    out[threadIdx.x] = heavy(x + threadIdx.x) + lookup[threadIdx.x & 31];
}
__global__ void k2(float* out) { out[threadIdx.x] = missing_fn(threadIdx.x); }
