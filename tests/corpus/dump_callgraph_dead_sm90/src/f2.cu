__device__ int used2(int);
__global__ void k(int* o){ o[0]=used2(o[1]); }
__device__ int dead2(int x){ return x*7; }
