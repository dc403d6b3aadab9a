package io.uform;

import java.io.IOException;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

import io.uform.failure.RuntimeFailure;

import static org.assertj.core.api.Assertions.assertThat;

class RuntimeFailuresTest {

	@Test
	void theRuntimesStatusesAreTheApisByName() {
		assertThat(Arrays.stream(RuntimeFailure.Status.values()).map(Enum::name))
			.containsExactlyElementsOf(Arrays.stream(UformException.Status.values()).map(Enum::name).toList());
	}

	@Test
	void aRuntimeFailureBecomesTheApisExceptionWithTheSameStatusMessageAndStack() {
		IOException io = new IOException("disk full");
		RuntimeFailure failure = new RuntimeFailure(RuntimeFailure.Status.TIMEOUT, "Mesh bootstrap timed out", io);
		UformException uform = RuntimeFailures.uform(failure);
		assertThat(uform.status()).isEqualTo(UformException.Status.TIMEOUT);
		assertThat(uform.getMessage()).isEqualTo("Mesh bootstrap timed out");
		assertThat(uform.getCause()).isSameAs(io);
		assertThat(uform.getStackTrace()).isEqualTo(failure.getStackTrace());
		assertThat(uform.field()).isNull();
		assertThat(uform.value()).isNull();
		assertThat(uform.fix()).isNull();
	}

	@Test
	void anInvalidFieldKeepsItsFieldValueAndFixAndReadsAsTheApiWouldWriteIt() {
		UformException uform = RuntimeFailures.uform(RuntimeFailure.invalid("job", "run\u001b[2J", "use letters"));
		UformException api = UformException.invalid("job", "run\u001b[2J", "use letters");
		assertThat(uform.status()).isEqualTo(UformException.Status.INVALID_ARGUMENT);
		assertThat(uform.getMessage()).isEqualTo(api.getMessage()).isEqualTo("Invalid job = run\\u001B[2J: use letters");
		assertThat(uform.field()).isEqualTo("job");
		assertThat(uform.value()).isEqualTo(api.value());
		assertThat(uform.fix()).isEqualTo("use letters");
		assertThat(RuntimeFailures.uform(RuntimeFailure.invalid("directory", null, "set it")).getMessage())
			.isEqualTo(UformException.invalid("directory", null, "set it").getMessage());
	}

	@Test
	void runtimeFailuresAmongTheCausesAndSuppressedBecomeTheApisToo() {
		RuntimeFailure cause = new RuntimeFailure(RuntimeFailure.Status.OUT_OF_MEMORY, "device full");
		RuntimeFailure failure = new RuntimeFailure(RuntimeFailure.Status.OUT_OF_MEMORY, "scratch could not grow", cause);
		IOException kept = new IOException("could not remove");
		failure.addSuppressed(kept);
		failure.addSuppressed(new RuntimeFailure(RuntimeFailure.Status.DEVICE_ERROR, "release failed"));
		UformException uform = RuntimeFailures.uform(failure);
		assertThat(uform.getCause()).isInstanceOf(UformException.class).hasMessage("device full");
		assertThat(((UformException) uform.getCause()).status()).isEqualTo(UformException.Status.OUT_OF_MEMORY);
		assertThat(uform.getSuppressed()).hasSize(2);
		assertThat(uform.getSuppressed()[0]).isSameAs(kept);
		assertThat(uform.getSuppressed()[1]).isInstanceOf(UformException.class).hasMessage("release failed");
	}
}
