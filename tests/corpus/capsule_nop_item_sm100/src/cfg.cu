struct Cfg { float scale, bias, lo, hi; };
__constant__ Cfg cfg;
__device__ float pick(float a, float b) { return a > b ? a : b; }
