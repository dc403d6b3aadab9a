package io.uform;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.UformException.Status;
import io.uform.child.RuntimeFailsFirst;
import io.uform.failure.FailureFactory;
import io.uform.failure.Failures;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UformFailuresTest {

	private final FailureFactory failures = Failures.factory();

	@Test
	void theRuntimeMakesItsFailuresWithTheApisFactory() {
		assertThat(this.failures).isSameAs(UformFailures.INSTANCE);
	}

	@Test
	void aRuntimeThatFailsBeforeTheApiIsUsedStillThrowsTheApisException() throws Exception {
		ChildJvm.Result child = ChildJvm.run(RuntimeFailsFirst.class, List.of(), 30);
		assertThat(child.exitCode()).as(child.output()).isZero();
		assertThat(child.output()).contains(UformException.class.getName() + ": Invalid count = -1: use 0 to ");
	}

	@Test
	void everyKindIsTheApisStatusWithTheRuntimesMessageAndCause() {
		IOException io = new IOException("disk full");
		List<Function<String, RuntimeException>> kinds = List.of(this.failures::invalidArgument,
				this.failures::unsupported, (message) -> this.failures.noDevice(message, io),
				(message) -> this.failures.outOfMemory(message, io), this.failures::timeout, this.failures::freed,
				(message) -> this.failures.interrupted(message, io), (message) -> this.failures.deviceError(message, io));
		assertThat(kinds.stream().map((kind) -> ((UformException) kind.apply("m")).status()))
			.containsExactlyInAnyOrder(Status.values());
		UformException timeout = (UformException) this.failures.timeout("Mesh bootstrap timed out");
		assertThat(timeout.getMessage()).isEqualTo("Mesh bootstrap timed out");
		assertThat(this.failures.deviceError("cuMemFree_v2 failed", io)).hasCause(io);
		assertThat(timeout.field()).isNull();
		assertThat(timeout.value()).isNull();
		assertThat(timeout.fix()).isNull();
	}

	@Test
	void anInvalidFieldKeepsItsFieldValueAndFixAndReadsAsTheApiWouldWriteIt() {
		UformException uform = (UformException) this.failures.invalid("job", "run\u001b[2J", "use letters");
		UformException api = UformException.invalid("job", "run\u001b[2J", "use letters");
		assertThat(uform.status()).isEqualTo(Status.INVALID_ARGUMENT);
		assertThat(uform.getMessage()).isEqualTo(api.getMessage()).isEqualTo("Invalid job = run\\u001B[2J: use letters");
		assertThat(uform.field()).isEqualTo("job");
		assertThat(uform.value()).isEqualTo(api.value());
		assertThat(uform.fix()).isEqualTo("use letters");
		assertThat(this.failures.invalid("directory", null, "set it").getMessage())
			.isEqualTo(UformException.invalid("directory", null, "set it").getMessage());
	}

	@Test
	void aKindCrossesAProcessBoundaryByNameAndAnUnknownOneIsAnInvalidArgument() {
		for (Status status : Status.values()) {
			UformException relayed = (UformException) this.failures.ofKind(status.name(), "peer gave up");
			assertThat(relayed.status()).isEqualTo(status);
			assertThat(this.failures.kindOf(relayed)).isEqualTo(status.name());
		}
		assertThat(((UformException) this.failures.ofKind("NEWER_KIND", "m")).status()).isEqualTo(Status.INVALID_ARGUMENT);
		assertThat(((UformException) this.failures.ofKind(null, "m")).status()).isEqualTo(Status.INVALID_ARGUMENT);
		assertThat(this.failures.kindOf(new IllegalStateException("not uform's"))).isNull();
	}

	@Test
	void onlyAnOutOfMemoryFailureIsOutOfMemory() {
		assertThat(Arrays.stream(Status.values()).filter((status) -> this.failures
			.isOutOfMemory(new UformException(status, "m")))).containsExactly(Status.OUT_OF_MEMORY);
		assertThat(this.failures.isOutOfMemory(new OutOfMemoryError())).isFalse();
	}

	@Test
	void aTasksFailureIsCopiedForTheForksCallerOnlyWhenItIsExactlyTheApisException() {
		UformException thrown = new UformException(Status.FREED, "freed");
		Throwable copy = this.failures.copyForCaller(thrown);
		assertThat(copy).isExactlyInstanceOf(UformException.class).hasMessage("freed").hasCause(thrown);
		assertThat(((UformException) copy).status()).isEqualTo(Status.FREED);
		assertThat(this.failures.copyForCaller(new UformException(Status.FREED, "freed") {
			private static final long serialVersionUID = 1L;
		})).isNull();
		assertThat(this.failures.copyForCaller(new IllegalStateException())).isNull();
	}
}
