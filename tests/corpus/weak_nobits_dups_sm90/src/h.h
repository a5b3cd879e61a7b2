__device__ inline int gp = 0;
