package io.uform.gpu;

import java.util.Locale;

/**
 * A PCI address, held as numbers so that two spellings of one device compare equal: CUDA writes
 * {@code 0000:1B:00.0}, NVML {@code 00000000:1B:00.0}, Linux sysfs {@code 0000:1b:00.0}.
 * Comparing the strings would miss matches on width and case (native-interfaces.md 2.6).
 *
 * @param domain PCI domain (segment)
 * @param bus bus number, 0-255
 * @param device device (slot) number, 0-31
 * @param function function number, 0-7
 */
public record PciAddress(int domain, int bus, int device, int function) {

	/**
	 * Parses {@code domain:bus:device.function}, {@code domain:bus:device} or
	 * {@code bus:device.function}, every field in hex of any width and case.
	 * @param text the address
	 * @return the address
	 * @throws IllegalArgumentException when the text is no PCI address
	 */
	public static PciAddress parse(String text) {
		String trimmed = text.trim();
		String[] colon = trimmed.split(":");
		try {
			if (colon.length == 3) {
				String[] dot = colon[2].split("\\.");
				int function = dot.length == 2 ? hex(dot[1]) : 0;
				return new PciAddress(hex(colon[0]), hex(colon[1]), hex(dot[0]), function);
			}
			if (colon.length == 2) {
				String[] dot = colon[1].split("\\.");
				if (dot.length == 2) {
					return new PciAddress(0, hex(colon[0]), hex(dot[0]), hex(dot[1]));
				}
			}
		}
		catch (NumberFormatException ex) {
			// falls through to the one message below
		}
		throw new IllegalArgumentException("Not a PCI address: '" + text + "'");
	}

	/**
	 * The address of a KFD node: its {@code domain} and its {@code location_id}, which is
	 * {@code (bus << 8) | devfn} with devfn = {@code (device << 3) | function}.
	 * @param domain the node's {@code domain} property
	 * @param locationId the node's {@code location_id} property
	 * @return the address
	 */
	public static PciAddress ofLocationId(int domain, int locationId) {
		return new PciAddress(domain, (locationId >> 8) & 0xff, (locationId >> 3) & 0x1f, locationId & 7);
	}

	private static int hex(String field) {
		if (field.isEmpty() || field.length() > 8) {
			throw new NumberFormatException(field);
		}
		return (int) Long.parseLong(field, 16);
	}

	/**
	 * The address as Linux names the device under {@code /sys/bus/pci/devices}: lower-case hex,
	 * 4-digit domain, like {@code 0000:1b:00.0}.
	 * @return the canonical spelling
	 */
	@Override
	public String toString() {
		return String.format(Locale.ROOT, "%04x:%02x:%02x.%x", this.domain, this.bus, this.device, this.function);
	}
}
