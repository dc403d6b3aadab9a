package io.uform.bench.startup;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Collectors;

import com.sun.management.OperatingSystemMXBean;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.context.metrics.buffering.BufferingApplicationStartup;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Starts, prints one {@code STARTUP} line when {@link ApplicationReadyEvent} fires, then closes the
 * context and exits, so that a script can start it many times. The line holds:
 * <ul>
 * <li>{@code ready_ms}: JVM uptime at the event (JVM start to ready, all class loading included);</li>
 * <li>{@code spring_ms}: Spring's own measure ({@link ApplicationReadyEvent#getTimeTaken()}, from
 * {@code SpringApplication.run} to ready, what "Started ... in X seconds" rounds);</li>
 * <li>{@code cpu_ms}: CPU time of the whole process so far (all threads: JIT compilers, GC, Tomcat's,
 * uform's), which depends much less than the two above on what else the machine runs;</li>
 * <li>{@code main_cpu_ms}: CPU time of the main thread, which runs {@code SpringApplication.run}: the
 * startup's critical path, without the threads that run beside it;</li>
 * <li>{@code classes}: classes loaded so far;</li>
 * <li>{@code uform_beans}: the context's bean names that start with {@code uform}, so the script can
 * check that a run with the starter really made its executor ({@code uformRamExecutor}) and one
 * without made none;</li>
 * <li>{@code env_ms}, {@code parse_ms}, {@code refresh_ms}, {@code uform_beans_ms}: Spring's startup
 * steps that the starter can lengthen, with {@code -Dio.uform.bench.steps=true}, else {@code -}
 * ({@link StartupSteps}).</li>
 * </ul>
 */
@SpringBootApplication
public class StartupApplication {

	/**
	 * Starts the application, reports its startup and exits with Spring's exit code.
	 * @param args command-line arguments, passed to Spring Boot ({@code --uform.vram.enabled=false})
	 */
	public static void main(String[] args) {
		SpringApplication application = new SpringApplication(StartupApplication.class);
		BufferingApplicationStartup steps = StartupSteps.recorderIfAsked();
		if (steps != null) {
			application.setApplicationStartup(steps);
		}
		application.addListeners((ApplicationReadyEvent event) -> report(event, steps));
		ConfigurableApplicationContext context = application.run(args);
		System.exit(SpringApplication.exit(context));
	}

	private static void report(ApplicationReadyEvent event, BufferingApplicationStartup steps) {
		// Read first, before anything below adds to it.
		long uptime = ManagementFactory.getRuntimeMXBean().getUptime();
		long mainCpu = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
		long processCpu = (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os)
				? os.getProcessCpuTime() : -1_000_000;
		Duration taken = event.getTimeTaken();
		long classes = ManagementFactory.getClassLoadingMXBean().getTotalLoadedClassCount();
		String uformBeans = Arrays.stream(event.getApplicationContext().getBeanDefinitionNames())
			.filter((name) -> name.startsWith("uform"))
			.sorted()
			.collect(Collectors.joining(","));
		System.out.println("STARTUP ready_ms=" + uptime + " spring_ms=" + ((taken != null) ? taken.toMillis() : -1)
				+ " cpu_ms=" + (processCpu / 1_000_000) + " main_cpu_ms=" + (mainCpu / 1_000_000) + " classes=" + classes + " uform_beans=" + (uformBeans.isEmpty() ? "-" : uformBeans) + " " + StartupSteps.fields(steps));
		String beanSteps = StartupSteps.beanLine(steps);
		if (beanSteps != null) {
			System.out.println(beanSteps);
		}
	}
}
