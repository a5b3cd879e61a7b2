// -kernels-used=boss,idle2: two kernels kept by the list, so `worker`
// (kept through the address `boss` stores) stays an entry point: its
// EIATTR_MIN_STACK_SIZE, `blend` stays; `idle` goes. Its `.nv.info` and
// `.nv.shared` names are still made as a function's.
__device__ __noinline__ float blend(float a, float b) { return 0.25f * a + 0.75f * b; }
__global__ void worker(float* p)
{
    __shared__ float s[32];
    s[threadIdx.x] = p[threadIdx.x];
    __syncthreads();
    p[threadIdx.x] = blend(s[threadIdx.x], s[threadIdx.x ^ 1]);
}
__global__ void boss(void** p) { *p = (void*)worker; }
__global__ void idle(float* p) { p[0] = 0; }
__global__ void idle2(float* p) { p[1] = 0; }
