// C++17 inline device variables: every object that includes this defines
// them weak; a pointer initializer gives table_ptr a relocation.
inline __device__ int table[4] = {1, 2, 3, 4};
inline __device__ int *table_ptr = table;
