// uform_dot_f32: batched dot products of query vectors against a row-major float32 matrix,
// the core of exact (brute-force) vector search.
//
// What it computes
//   For every query q < nqueries and every matrix row r < rows:
//     scores[q * rows + r] = sum over i < dim of queries[q * dim + i] * matrix[r * dim + i]
//   matrix  : rows x dim floats, row-major, device memory
//   queries : nqueries x dim floats, row-major, device memory
//   scores  : nqueries x rows floats, row-major (one row of scores per query), device memory;
//             every element is written, nothing is read from it. It must not overlap the inputs.
//   Any dim (not only multiples of 32 or 4), any rows, any nqueries; dim == 0 writes zeros.
//   Offsets are computed in 64 bits, so rows * dim and nqueries * rows may exceed 2^32.
//
// Numerics
//   The math is a plain dot product: each lane of a warp accumulates, in float, the products for
//   i = lane, lane + 32, lane + 64, ... and the 32 partial sums are then added by a warp-shuffle
//   tree. The summation order therefore differs from a serial loop, so results match a host
//   double-precision reference to about 1e-5 relative (for well-conditioned data), not bit for bit.
//
// How it runs
//   One warp per matrix row: the 32 lanes stride over dim, so each row read is coalesced
//   (128 bytes per warp per step). Queries are taken QUERY_TILE (= 4) at a time: each lane keeps
//   4 accumulators, so one read of the matrix row serves 4 queries; the query vectors are shared
//   by every warp and are read through the read-only data cache (__ldg). Warps stride over rows by
//   the whole grid, so a grid smaller than the formula below is still correct (only slower).
//   No shared memory, no __syncthreads: a warp whose row is past the end simply exits.
//
// Launch contract (kept in sync with src/main/resources/io/uform/kernels/uform_dot_f32.launch)
//   entry             uform_dot_f32
//   block             (256, 1, 1) threads: 8 warps, 8 matrix rows per block at a time
//                     (any multiple of 32 up to 1024 also works; the kernel reads blockDim.x)
//   grid              (ceil(rows / 8), 1, 1), i.e. (rows + 7) / 8; may be capped at any value
//                     >= 1 (e.g. 2^31 - 1, the gridDim.x limit) since warps stride over rows.
//                     rows == 0 or nqueries == 0: do not launch (a grid of 0 is invalid).
//   shared memory     0 dynamic bytes (sharedMemBytes = 0)
//   parameters, in order (cuLaunchKernel kernelParams: one pointer to each value)
//     0  const float*  matrix     CUdeviceptr, 8 bytes
//     1  const float*  queries    CUdeviceptr, 8 bytes
//     2  float*        scores     CUdeviceptr, 8 bytes
//     3  unsigned int  rows       4 bytes
//     4  unsigned int  dim        4 bytes
//     5  unsigned int  nqueries   4 bytes
//
// Regenerating the PTX (needs nvcc from CUDA 13; users never need it)
//   scripts/gen-ptx.sh
// writes src/main/resources/io/uform/kernels/uform_dot_f32.ptx: nvcc --ptx -arch=compute_75 -O3,
// then the PTX ISA version is lowered from 9.0 to 8.0 (CUDA 12.0) after checking that nothing in
// it needs a newer ISA, so that CUDA 12.x drivers load it as well as CUDA 13 ones. Commit the PTX
// with this file; KernelPtxTest compares the two where nvcc is on the PATH.

#define UFORM_WARP 32u
#define QUERY_TILE 4u

__device__ __forceinline__ float uform_warp_sum(float v) {
	v += __shfl_xor_sync(0xffffffffu, v, 16);
	v += __shfl_xor_sync(0xffffffffu, v, 8);
	v += __shfl_xor_sync(0xffffffffu, v, 4);
	v += __shfl_xor_sync(0xffffffffu, v, 2);
	v += __shfl_xor_sync(0xffffffffu, v, 1);
	return v;
}

extern "C" __global__ void uform_dot_f32(const float* __restrict__ matrix,
		const float* __restrict__ queries,
		float* __restrict__ scores,
		unsigned int rows, unsigned int dim, unsigned int nqueries) {
	const unsigned int lane = threadIdx.x % UFORM_WARP;
	const unsigned int warpsPerBlock = blockDim.x / UFORM_WARP;
	const unsigned long long warpStride = (unsigned long long) gridDim.x * warpsPerBlock;

	// Every condition below depends only on the warp's row, so all 32 lanes take the same path
	// and the full-mask shuffles are legal.
	for (unsigned long long r = (unsigned long long) blockIdx.x * warpsPerBlock + threadIdx.x / UFORM_WARP;
			r < rows; r += warpStride) {
		const float* row = matrix + r * dim;

		unsigned int q = 0;
		for (; nqueries - q >= QUERY_TILE; q += QUERY_TILE) {
			const float* q0 = queries + (unsigned long long) q * dim;
			const float* q1 = q0 + dim;
			const float* q2 = q1 + dim;
			const float* q3 = q2 + dim;
			float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
			for (unsigned int i = lane; i < dim; i += UFORM_WARP) {
				const float m = row[i];
				s0 += m * __ldg(q0 + i);
				s1 += m * __ldg(q1 + i);
				s2 += m * __ldg(q2 + i);
				s3 += m * __ldg(q3 + i);
			}
			s0 = uform_warp_sum(s0);
			s1 = uform_warp_sum(s1);
			s2 = uform_warp_sum(s2);
			s3 = uform_warp_sum(s3);
			if (lane == 0) {
				float* out = scores + (unsigned long long) q * rows + r;
				out[0] = s0;
				out[(unsigned long long) rows] = s1;
				out[2ull * rows] = s2;
				out[3ull * rows] = s3;
			}
		}
		for (; q < nqueries; ++q) {
			const float* qv = queries + (unsigned long long) q * dim;
			float s = 0.0f;
			for (unsigned int i = lane; i < dim; i += UFORM_WARP) {
				s += row[i] * __ldg(qv + i);
			}
			s = uform_warp_sum(s);
			if (lane == 0) {
				scores[(unsigned long long) q * rows + r] = s;
			}
		}
	}
}
