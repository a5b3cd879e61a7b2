__device__ int y3;
__global__ void k3(int* o){ o[0] = y3; }
