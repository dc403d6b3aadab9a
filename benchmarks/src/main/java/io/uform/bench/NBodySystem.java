package io.uform.bench;

import java.util.SplittableRandom;

/**
 * A small gravitational n-body system in structure-of-arrays form, stepped in two phases that are
 * each trivially parallel over bodies:
 * <ol>
 * <li>{@link #accelerate(int, int)}: body {@code i}'s acceleration from every body {@code j}
 * (O(N^2)); reads all positions, writes only {@code ax[i], ay[i], az[i]}.</li>
 * <li>{@link #move(int, int)}: body {@code i}'s velocity and position from its acceleration
 * (semi-implicit Euler); reads and writes only body {@code i}.</li>
 * </ol>
 * The join between the phases is the only barrier needed: within a phase no body's writes are
 * another body's reads.
 *
 * <h2>Why parallel results must equal serial ones bit for bit</h2>
 * Each body's sum over {@code j} runs in the same order {@code 0..N-1} on one thread whichever
 * implementation or split runs it, and Java floating point is strict (IEEE 754, no fused or
 * reordered operations, {@code Math.sqrt} correctly rounded). So every implementation computes the
 * very same operations on the same values; any difference is a bug (a race or a missed index), not
 * rounding. {@link NBodyCheck} and the benchmark's setup assert exactly that.
 */
public final class NBodySystem {

	/** Time step. */
	static final double DT = 1e-3;

	/** Plummer softening squared: keeps close encounters finite and makes the j == i term exactly 0. */
	static final double SOFTENING_SQUARED = 1e-3;

	final int n;

	final double[] x;

	final double[] y;

	final double[] z;

	final double[] vx;

	final double[] vy;

	final double[] vz;

	final double[] m;

	final double[] ax;

	final double[] ay;

	final double[] az;

	private NBodySystem(int n) {
		this.n = n;
		this.x = new double[n];
		this.y = new double[n];
		this.z = new double[n];
		this.vx = new double[n];
		this.vy = new double[n];
		this.vz = new double[n];
		this.m = new double[n];
		this.ax = new double[n];
		this.ay = new double[n];
		this.az = new double[n];
	}

	/**
	 * A reproducible system: positions in the unit cube around the origin, small velocities, masses
	 * summing to about 1, all drawn from one seeded generator.
	 * @param n how many bodies
	 * @param seed the generator's seed
	 * @return the system
	 */
	public static NBodySystem seeded(int n, long seed) {
		SplittableRandom random = new SplittableRandom(seed);
		NBodySystem system = new NBodySystem(n);
		for (int i = 0; i < n; i++) {
			system.x[i] = random.nextDouble(-1, 1);
			system.y[i] = random.nextDouble(-1, 1);
			system.z[i] = random.nextDouble(-1, 1);
			system.vx[i] = random.nextDouble(-0.1, 0.1);
			system.vy[i] = random.nextDouble(-0.1, 0.1);
			system.vz[i] = random.nextDouble(-0.1, 0.1);
			system.m[i] = random.nextDouble(0.5, 1.5) / n;
		}
		return system;
	}

	/**
	 * A deep copy.
	 * @return a system with equal, independent arrays
	 */
	public NBodySystem copy() {
		NBodySystem copy = new NBodySystem(this.n);
		copy.copyFrom(this);
		return copy;
	}

	/**
	 * Overwrites this system's state with another's of the same size.
	 * @param other the source
	 */
	public void copyFrom(NBodySystem other) {
		if (other.n != this.n) {
			throw new IllegalArgumentException("sizes differ: " + other.n + " and " + this.n);
		}
		System.arraycopy(other.x, 0, this.x, 0, this.n);
		System.arraycopy(other.y, 0, this.y, 0, this.n);
		System.arraycopy(other.z, 0, this.z, 0, this.n);
		System.arraycopy(other.vx, 0, this.vx, 0, this.n);
		System.arraycopy(other.vy, 0, this.vy, 0, this.n);
		System.arraycopy(other.vz, 0, this.vz, 0, this.n);
		System.arraycopy(other.m, 0, this.m, 0, this.n);
		System.arraycopy(other.ax, 0, this.ax, 0, this.n);
		System.arraycopy(other.ay, 0, this.ay, 0, this.n);
		System.arraycopy(other.az, 0, this.az, 0, this.n);
	}

	/**
	 * How many bodies.
	 * @return the count
	 */
	public int size() {
		return this.n;
	}

	/**
	 * Phase 1 for one body.
	 * @param i the body
	 */
	public void accelerate(int i) {
		double xi = this.x[i];
		double yi = this.y[i];
		double zi = this.z[i];
		double sx = 0;
		double sy = 0;
		double sz = 0;
		// j == i is not skipped: with softening its term is exactly +0.0, and no branch in the loop.
		for (int j = 0; j < this.n; j++) {
			double dx = this.x[j] - xi;
			double dy = this.y[j] - yi;
			double dz = this.z[j] - zi;
			double r2 = dx * dx + dy * dy + dz * dz + SOFTENING_SQUARED;
			double s = this.m[j] / (r2 * Math.sqrt(r2));
			sx += dx * s;
			sy += dy * s;
			sz += dz * s;
		}
		this.ax[i] = sx;
		this.ay[i] = sy;
		this.az[i] = sz;
	}

	/**
	 * Phase 1 for bodies {@code from..to-1}.
	 * @param from the first body
	 * @param to one past the last body
	 */
	public void accelerate(int from, int to) {
		for (int i = from; i < to; i++) {
			accelerate(i);
		}
	}

	/**
	 * Phase 2 for one body.
	 * @param i the body
	 */
	public void move(int i) {
		this.vx[i] += this.ax[i] * DT;
		this.vy[i] += this.ay[i] * DT;
		this.vz[i] += this.az[i] * DT;
		this.x[i] += this.vx[i] * DT;
		this.y[i] += this.vy[i] * DT;
		this.z[i] += this.vz[i] * DT;
	}

	/**
	 * Phase 2 for bodies {@code from..to-1}.
	 * @param from the first body
	 * @param to one past the last body
	 */
	public void move(int from, int to) {
		for (int i = from; i < to; i++) {
			move(i);
		}
	}

	/**
	 * One whole step on the calling thread: the reference every parallel version must match.
	 */
	public void stepSerial() {
		accelerate(0, this.n);
		move(0, this.n);
	}

	/**
	 * Describes the first value that differs bit for bit from {@code other}, or returns {@code null}
	 * when every position, velocity, mass and acceleration is identical. Compares raw bits, so
	 * {@code -0.0} and {@code 0.0} differ and a NaN equals only the same NaN.
	 * @param other a system of the same size
	 * @return {@code null}, or e.g. {@code "vx[17]: 0.0123 != 0.0124"}
	 */
	public String firstDifference(NBodySystem other) {
		String[] names = { "x", "y", "z", "vx", "vy", "vz", "m", "ax", "ay", "az" };
		double[][] mine = { this.x, this.y, this.z, this.vx, this.vy, this.vz, this.m, this.ax, this.ay, this.az };
		double[][] theirs = { other.x, other.y, other.z, other.vx, other.vy, other.vz, other.m, other.ax, other.ay,
				other.az };
		for (int a = 0; a < names.length; a++) {
			for (int i = 0; i < this.n; i++) {
				if (Double.doubleToRawLongBits(mine[a][i]) != Double.doubleToRawLongBits(theirs[a][i])) {
					return names[a] + "[" + i + "]: " + mine[a][i] + " != " + theirs[a][i];
				}
			}
		}
		return null;
	}

	/**
	 * Whether every value is finite, as a sanity check that the parameters keep the system bounded.
	 * @return {@code true} when no NaN or infinity appeared
	 */
	public boolean isFinite() {
		for (double[] values : new double[][] { this.x, this.y, this.z, this.vx, this.vy, this.vz }) {
			for (double value : values) {
				if (!Double.isFinite(value)) {
					return false;
				}
			}
		}
		return true;
	}
}
