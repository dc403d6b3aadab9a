package io.uform.sample.search;

import java.time.Duration;
import java.util.List;

import io.uform.DeviceBuffer;
import io.uform.DeviceLane;
import io.uform.Executor;
import io.uform.HostBuffer;

/**
 * The scan on the VRAM executor. At startup the corpus is split into one contiguous shard per device
 * and each shard is copied into that device's scratch, where it stays. A search is a deferred call
 * (the one deferred thread keeps each device's stream used by one thread at a time) that runs one
 * task per device, all devices at once: the task reserves scratch for the query and the scores,
 * copies the query in, runs uform's PTX dot-product kernel over its shard, copies the scores back
 * and keeps the shard's top-k on the host; the call merges the devices' top-k.
 *
 * <p>A simulated device (host memory, no kernels) still holds its shard in scratch and still takes
 * the query's reservations and copy, so the scratch meters move as they would on a GPU, but scores
 * its shard on the host, on the device's own thread, with the same dot product as the RAM path.
 */
final class VramSearch implements SearchEngine, AutoCloseable {

	/** Floats per upload: the host staging buffer is this size, whatever the corpus. */
	private static final int UPLOAD_CHUNK_FLOATS = 1 << 20;

	private final Executor executor;

	private final Corpus corpus;

	private final Duration slotWait;

	private final List<Shard> shards;

	private final boolean kernels;

	/**
	 * Copies the corpus into the devices' scratch; the reservations are held until the executor is
	 * freed, which frees what is still reserved (the context frees it before it destroys this bean).
	 * @param executor the VRAM executor
	 * @param corpus what it scans
	 * @param slotWait how long a request waits for a deferred-call slot before it is refused
	 */
	VramSearch(Executor executor, Corpus corpus, Duration slotWait) {
		this.executor = executor;
		this.corpus = corpus;
		this.slotWait = slotWait;
		List<DeviceLane> lanes = executor.lanes();
		Shard[] shards = new Shard[lanes.size()];
		try {
			executor.forDevices((lane) -> shards[lane.index()] = upload(lane, lanes.size()));
		}
		catch (RuntimeException | Error ex) {
			// One device failed (its scratch too small, say): the others' host buffers go now.
			for (Shard shard : shards) {
				if (shard != null) {
					shard.close();
				}
			}
			throw ex;
		}
		this.shards = List.of(shards);
		this.kernels = lanes.stream().noneMatch(DeviceLane::simulated);
	}

	@Override
	public String name() {
		return "vram";
	}

	@Override
	public String path() {
		return this.kernels ? "gpu-kernel" : "simulated-gpu-host-scan";
	}

	/**
	 * Whether the scan runs on real GPUs.
	 * @return {@code false} on simulated devices
	 */
	boolean runsKernels() {
		return this.kernels;
	}

	/**
	 * The devices the corpus is spread over.
	 * @return at least 1
	 */
	int devices() {
		return this.shards.size();
	}

	@Override
	public List<Hit> search(float[] query, int k) {
		return DeferredSearch.await(this.executor.defer(() -> scan(query, k), this.slotWait));
	}

	private List<Hit> scan(float[] query, int k) {
		TopK[] perDevice = new TopK[this.shards.size()];
		this.executor.forDevices((lane) -> perDevice[lane.index()] = this.shards.get(lane.index()).scan(lane, query, k));
		TopK merged = new TopK(k);
		for (TopK top : perDevice) {
			merged.merge(top);
		}
		return merged.hits();
	}

	/**
	 * Frees the host buffers. Safe after the executor was freed: a host buffer then only frees its
	 * memory, its stream having been synchronised when the executor was freed.
	 */
	@Override
	public void close() {
		for (Shard shard : this.shards) {
			shard.close();
		}
	}

	@SuppressWarnings("try") // the trial reservations are held through their block, not used in it
	private Shard upload(DeviceLane lane, int devices) {
		int dimensions = this.corpus.dimensions();
		int first = (int) ((long) this.corpus.rows() * lane.index() / devices);
		int end = (int) ((long) this.corpus.rows() * (lane.index() + 1) / devices);
		int rows = end - first;
		if (rows == 0) {
			return new Shard(first, 0, null, null, null);
		}
		long floats = (long) rows * dimensions;
		DeviceBuffer matrix = lane.reserve(floats * Float.BYTES);
		// Every search also reserves scratch for its query and scores beside the shard: a scratch limit
		// too small for that fails startup here, rather than every search on this engine later.
		try (DeviceBuffer query = lane.reserve((long) dimensions * Float.BYTES);
				DeviceBuffer scores = lane.reserve((long) rows * Float.BYTES)) {
			// Given back at once; the scan reserves them again.
		}
		// Whole rows per chunk, so each chunk is one copyRows.
		int rowsPerChunk = Math.max(1, UPLOAD_CHUNK_FLOATS / dimensions);
		float[] chunk = new float[Math.min(rowsPerChunk, rows) * dimensions];
		try (HostBuffer staging = lane.hostBuffer((long) chunk.length * Float.BYTES)) {
			for (int row = 0; row < rows; row += rowsPerChunk) {
				int count = Math.min(rowsPerChunk, rows - row);
				float[] part = (count * dimensions == chunk.length) ? chunk : new float[count * dimensions];
				this.corpus.copyRows(first + row, part);
				staging.putFloats(0, part);
				lane.copyToDevice(staging, 0, matrix, (long) row * dimensions * Float.BYTES, (long) part.length * Float.BYTES);
				// The staging buffer is refilled next round: the copy must have read it first.
				lane.synchronize();
			}
		}
		HostBuffer queryStaging = lane.hostBuffer((long) dimensions * Float.BYTES);
		try {
			return new Shard(first, rows, matrix, queryStaging, lane.hostBuffer((long) rows * Float.BYTES));
		}
		catch (RuntimeException | Error ex) {
			// Native memory, which the executor's free does not reclaim: given back here.
			queryStaging.close();
			throw ex;
		}
	}

	/**
	 * One device's rows: their place in the corpus, their copy in scratch, and host buffers for the
	 * query and scores, reused by every search (one search at a time runs on a device).
	 */
	private final class Shard {

		private final int first;

		private final int rows;

		private final DeviceBuffer matrix;

		private final HostBuffer queryHost;

		private final HostBuffer scoresHost;

		private final float[] scores;

		Shard(int first, int rows, DeviceBuffer matrix, HostBuffer queryHost, HostBuffer scoresHost) {
			this.first = first;
			this.rows = rows;
			this.matrix = matrix;
			this.queryHost = queryHost;
			this.scoresHost = scoresHost;
			this.scores = new float[rows];
		}

		void close() {
			if (this.queryHost != null) {
				this.queryHost.close();
				this.scoresHost.close();
			}
		}

		TopK scan(DeviceLane lane, float[] query, int k) {
			TopK top = new TopK(k);
			if (this.rows == 0) {
				return top;
			}
			int dimensions = VramSearch.this.corpus.dimensions();
			// Activation scratch for this one search: reserved here, given back when it ends.
			try (DeviceBuffer queryOnDevice = lane.reserve((long) dimensions * Float.BYTES);
					DeviceBuffer scoresOnDevice = lane.reserve((long) this.rows * Float.BYTES)) {
				this.queryHost.putFloats(0, query);
				lane.copyToDevice(this.queryHost, queryOnDevice);
				if (lane.simulated()) {
					lane.synchronize();
					VramSearch.this.corpus.scan(this.first, this.rows, query, top);
					return top;
				}
				lane.dotProducts(this.matrix, queryOnDevice, scoresOnDevice, this.rows, dimensions, 1);
				lane.copyToHost(scoresOnDevice, this.scoresHost);
				lane.synchronize();
				this.scoresHost.getFloats(0, this.scores);
				for (int i = 0; i < this.rows; i++) {
					top.offer(this.first + i, this.scores[i]);
				}
				return top;
			}
		}
	}
}
