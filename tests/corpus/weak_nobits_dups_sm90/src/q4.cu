#include "h.h"
__device__ int y4;
__global__ void k4(int* o){ o[0] = y4 + gp; }
