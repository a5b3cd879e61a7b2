// A weak (C++17 inline) copy of gp, relocated against ga; loses to s.o's.
extern __device__ int ga;
inline __device__ int *gp = &ga;
__global__ void kw1(int *o) { o[0] = *gp; }
