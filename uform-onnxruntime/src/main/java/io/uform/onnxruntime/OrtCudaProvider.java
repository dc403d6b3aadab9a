package io.uform.onnxruntime;

import java.util.Map;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtProvider;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.providers.OrtCUDAProviderOptions;
import io.uform.DeviceLane;
import io.uform.UformException;

/** ONNX Runtime's CUDA execution provider, where the jar on the class path has it. */
final class OrtCudaProvider implements CudaProvider {

	@Override
	public AutoCloseable add(OrtSession.SessionOptions session, DeviceLane lane, Map<String, String> options)
			throws OrtException {
		if (!OrtEnvironment.getAvailableProviders().contains(OrtProvider.CUDA)) {
			throw new UformException(UformException.Status.UNSUPPORTED, "ONNX Runtime on this class path has no CUDA "
					+ "execution provider (it offers " + OrtEnvironment.getAvailableProviders() + "), so a model cannot run "
					+ "on VRAM executor device " + lane.index() + " (" + lane.device().name() + "): replace "
					+ "com.microsoft.onnxruntime:onnxruntime with com.microsoft.onnxruntime:onnxruntime_gpu (same "
					+ "version; it needs CUDA 12 and cuDNN 9): add an <exclusion> of com.microsoft.onnxruntime:onnxruntime "
					+ "to the io.uform:uform-onnxruntime dependency, and depend on onnxruntime_gpu. Or load the model "
					+ "on a RAM executor");
		}
		if (lane.simulated()) {
			throw new UformException(UformException.Status.UNSUPPORTED, "VRAM executor device " + lane.index() + " ("
					+ lane.device().name() + ") is simulated (host memory): ONNX Runtime's CUDA provider needs a real "
					+ "GPU; load the model on a RAM executor");
		}
		OrtCUDAProviderOptions cuda = new OrtCUDAProviderOptions(lane.runtimeOrdinal());
		try {
			for (Map.Entry<String, String> option : options.entrySet()) {
				cuda.add(option.getKey(), option.getValue());
			}
			session.addCUDA(cuda);
		}
		catch (OrtException | RuntimeException ex) {
			cuda.close();
			throw ex;
		}
		return cuda;
	}
}
