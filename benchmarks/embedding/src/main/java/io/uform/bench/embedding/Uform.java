package io.uform.bench.embedding;

/** Which uform path the run measures. */
final class Uform {

	private Uform() {
	}

	static Peer peer(int threads) {
		return new UformSamplePeer(threads);
	}
}
