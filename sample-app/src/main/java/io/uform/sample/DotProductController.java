package io.uform.sample;

import java.util.Map;
import java.util.SplittableRandom;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import io.uform.Executor;
import io.uform.ExecutorStatistics;

/**
 * Computes dot products of two seeded random vectors, sliced across the RAM executor's threads: each
 * thread sums its own contiguous slice into its own slot, then the slots are added in thread order,
 * so the answer is the same on every run with the same thread count.
 */
@RestController
public class DotProductController {

	/** Largest vector the endpoint accepts, so one request cannot exhaust the heap. */
	static final int MAX_LENGTH = 20_000_000;

	private final Executor executor;

	DotProductController(@Qualifier("uformRamExecutor") Executor executor) {
		this.executor = executor;
	}

	/**
	 * The dot product of two random vectors of a given length.
	 * @param length elements per vector, 1 to {@value #MAX_LENGTH}
	 * @param seed the random seed that makes the vectors
	 * @return the length, seed, result and the threads used
	 */
	@GetMapping("/api/dot")
	public Map<String, Object> dot(@RequestParam(defaultValue = "1000000") int length,
			@RequestParam(defaultValue = "42") long seed) {
		if (length < 1 || length > MAX_LENGTH) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST,
					"length must be between 1 and " + MAX_LENGTH + ", was " + length);
		}
		double[] a = new double[length];
		double[] b = new double[length];
		SplittableRandom random = new SplittableRandom(seed);
		for (int i = 0; i < length; i++) {
			a[i] = random.nextDouble();
			b[i] = random.nextDouble();
		}
		double[] partial = new double[this.executor.threads()];
		this.executor.forSlices(length, (first, count, thread, colocation) -> {
			double sum = 0;
			for (int i = first; i < first + count; i++) {
				sum += a[i] * b[i];
			}
			partial[thread] = sum;
		});
		double total = 0;
		for (double sum : partial) {
			total += sum;
		}
		return Map.of("length", length, "seed", seed, "dot", total, "threads", this.executor.threads());
	}

	/**
	 * The executor's state and counters.
	 * @return the statistics snapshot
	 */
	@GetMapping("/api/executor")
	public ExecutorStatistics executor() {
		return this.executor.statistics();
	}
}
