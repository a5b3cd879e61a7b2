// __managed__ variable defined here, used from b.cu.
__managed__ int m_counter = 3;
__device__ __noinline__ void bump(int v) { atomicAdd(&m_counter, v); }
