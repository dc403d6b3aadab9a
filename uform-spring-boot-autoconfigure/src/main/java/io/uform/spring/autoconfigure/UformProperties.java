package io.uform.spring.autoconfigure;

import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code uform.*} properties: how the application's executors are made. Every field is optional;
 * an absent one is derived from the machine when the executor is made, as in uform itself.
 */
@ConfigurationProperties("uform")
public class UformProperties {

	private final Ram ram = new Ram();

	/**
	 * The RAM executor's properties, {@code uform.ram.*}.
	 * @return the RAM executor's properties
	 */
	public Ram getRam() {
		return this.ram;
	}

	/**
	 * Properties of the RAM executor (host threads), mapped onto {@code io.uform.ExecutorForRamConfig}.
	 */
	public static class Ram {

		/**
		 * Whether to make the RAM executor bean.
		 */
		private boolean enabled = true;

		/**
		 * Threads taking part in a fork, its caller included. Unset takes 7/8 of the cores the memory
		 * domains carry (all of them below 8 cores).
		 */
		private Integer threads;

		/**
		 * NUMA node ids the threads are spread over. Unset spreads them over every node.
		 */
		private List<Integer> memoryDomains;

		/**
		 * CPU class to dispatch as, like 'intel-haswell'. Unset takes the CPU's best class.
		 */
		private String cpuClass;

		/**
		 * Deferred calls tracked at once (queued plus running). Unset takes 64.
		 */
		private Integer deferredLimit;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Integer getThreads() {
			return this.threads;
		}

		public void setThreads(Integer threads) {
			this.threads = threads;
		}

		public List<Integer> getMemoryDomains() {
			return this.memoryDomains;
		}

		public void setMemoryDomains(List<Integer> memoryDomains) {
			this.memoryDomains = memoryDomains;
		}

		public String getCpuClass() {
			return this.cpuClass;
		}

		public void setCpuClass(String cpuClass) {
			this.cpuClass = cpuClass;
		}

		public Integer getDeferredLimit() {
			return this.deferredLimit;
		}

		public void setDeferredLimit(Integer deferredLimit) {
			this.deferredLimit = deferredLimit;
		}
	}
}
