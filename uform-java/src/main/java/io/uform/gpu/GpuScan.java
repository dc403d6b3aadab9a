package io.uform.gpu;

import java.util.List;

/**
 * What one vendor's discovery found: devices in the order that vendor's runtime numbers them, plus
 * what went wrong ({@code problems}: a driver that is present but failing, an unreadable file) and
 * what was merely observed ({@code notes}: which driver answered, or that none is installed).
 *
 * @param gpus the devices this process can use, in runtime order
 * @param problems failures a person should look at; empty when all went well
 * @param notes plain observations for diagnostics
 */
record GpuScan(List<FoundGpu> gpus, List<String> problems, List<String> notes) {

	GpuScan {
		gpus = List.copyOf(gpus);
		problems = List.copyOf(problems);
		notes = List.copyOf(notes);
	}

	/**
	 * A scan that found nothing, for a reason that is no failure.
	 * @param note why, for diagnostics
	 * @return the empty scan
	 */
	static GpuScan none(String note) {
		return new GpuScan(List.of(), List.of(), List.of(note));
	}
}
