// A __constant__ and a __device__ variable holding addresses of a
// __device__ array: relocations in the user constant bank and in the
// initialized globals, kept for the driver in both symbol tables.
__device__ int table[4] = {5, 6, 7, 8};
__device__ int *second = &table[1];
__constant__ int *third = &table[2];
__global__ void k_addr(int *o) { o[0] = *second + *third; }
