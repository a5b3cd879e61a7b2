#include "h.h"
__device__ int x1;
__global__ void k1(int* o){ o[0] = gp + x1; }
