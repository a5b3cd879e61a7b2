// The read+write PT_LOAD: an initialized variable, two kernels' NOBITS
// .nv.shared.<k> (aligned 8 and 4) and an uninitialized variable aligned
// to 32. nvlink's p_filesz runs to the last NOBITS section's offset (0x20),
// and p_memsz lays the NOBITS sections out from there (0x864).
__device__ int init = 5;
__device__ __align__(32) char buf[4];
__global__ void k1(int* o) { __shared__ int s[3]; s[threadIdx.x] = o[1]; __syncthreads(); o[0] = buf[threadIdx.x] + init + s[2 - threadIdx.x]; }
__global__ void k2(double* o) { __shared__ double s[3]; s[threadIdx.x] = o[1]; __syncthreads(); o[0] = s[2 - threadIdx.x]; }
