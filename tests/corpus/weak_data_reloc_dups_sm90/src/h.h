__device__ inline int arr[4] = {1,2,3,4};
__device__ inline int* pa = &arr[2];
__device__ inline long pad = 7;
__device__ inline int* pb = &arr[1];
