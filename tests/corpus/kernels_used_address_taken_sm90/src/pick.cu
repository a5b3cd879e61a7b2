// -kernels-used=kPick: kUnused goes; divOp stays (kPick stores its
// address) but no indirect call of its prototype exists, so its division
// helper goes with kUnused.
typedef float (*Op)(float, float);
__device__ __noinline__ float divOp(float a, float b) { return a / b; }
__global__ void kPick(Op* out) { *out = divOp; }
__global__ void kUnused(const float* in, float* o)
{
    __shared__ float s[64];
    s[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    o[threadIdx.x] = s[63 - threadIdx.x];
}
