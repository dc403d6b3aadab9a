package io.uform.onnxruntime;

import java.util.LinkedHashMap;
import java.util.Map;

import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import io.uform.DeviceLane;

/**
 * The boundary to ONNX Runtime's CUDA execution provider, the one piece a machine without a GPU and
 * without the {@code onnxruntime_gpu} jar cannot have: tests stand in for it here, and
 * {@code docs/models.md} says what was checked on silicon.
 */
interface CudaProvider {

	/** ONNX Runtime's own provider. */
	CudaProvider ORT = new OrtCudaProvider();

	/**
	 * The provider's options for a device of a VRAM executor, as uform's own map: the device's CUDA
	 * ordinal as this process sees it and the executor's stream for it, so that the model's kernels
	 * are ordered with the executor's other work (ONNX Runtime sets {@code has_user_compute_stream}
	 * itself when it gets a stream).
	 * @param lane the device
	 * @return {@code device_id} and {@code user_compute_stream}, both as decimal strings
	 */
	static Map<String, String> options(DeviceLane lane) {
		Map<String, String> options = new LinkedHashMap<>();
		options.put("device_id", Integer.toString(lane.runtimeOrdinal()));
		options.put("user_compute_stream", Long.toUnsignedString(lane.streamAddress()));
		return options;
	}

	/**
	 * Adds the CUDA execution provider to a session's options.
	 * @param session the options of the session to open
	 * @param lane the device
	 * @param options from {@link #options(DeviceLane)}
	 * @return what to close once the session is open
	 * @throws io.uform.UformException {@code UNSUPPORTED} when the provider cannot run there
	 */
	AutoCloseable add(OrtSession.SessionOptions session, DeviceLane lane, Map<String, String> options) throws OrtException;
}
