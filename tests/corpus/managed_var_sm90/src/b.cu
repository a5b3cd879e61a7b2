extern __managed__ int m_counter;
extern __device__ void bump(int v);
__global__ void k_managed(int *out) { bump(threadIdx.x); out[0] = m_counter; }
