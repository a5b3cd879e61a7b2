// Kernel calling m1_func() and m3_func() from libx.a (members are host objects
// built with nvcc -rdc=true -c, each embedding a fatbin). m2.o is never
// referenced (but has a kernel), m4.o is never referenced; m3_func() needs
// m1_data (m1.o).
extern __device__ int m1_func(int x);
extern __device__ int m3_func(int x);

__global__ void k_archive(int *out)
{
  out[threadIdx.x] = m3_func(m1_func(threadIdx.x));
}
