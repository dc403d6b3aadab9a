package io.uform;

/**
 * How a mesh's NVLink domains reduce: with the switch doing the arithmetic (NVLink SHARP multicast)
 * or by each GPU reading its peers' memory.
 */
public enum MultimemTier {
	/** NVSwitch multicast objects reduce in the switch ({@code CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED}). */
	SWITCH_REDUCED("switch-reduced"),
	/** GPUs read each other's memory over NVLink or PCIe peer access. */
	PEER_READ("peer-read");

	private final String label;

	MultimemTier(String label) {
		this.label = label;
	}

	/**
	 * The tier as uform spells it.
	 * @return {@code switch-reduced} or {@code peer-read}
	 */
	public String label() {
		return this.label;
	}
}
