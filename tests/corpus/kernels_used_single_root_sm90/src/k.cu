// -kernels-used=boss: `boss` stores `worker`'s address; `idle` goes.
// With one kernel kept by the list, `worker` is a function: no
// EIATTR_MIN_STACK_SIZE, no `.nv.shared._Z6workerPf` with its code,
// `blend` goes, and `boss` gets `worker`'s EIATTR_NUM_BARRIERS 1.
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
