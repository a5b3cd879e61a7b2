#include "h.h"
__device__ int ua();
__global__ void k(int* o){ o[0] = *pa + *pb + ua(); }
