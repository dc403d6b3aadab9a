import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts what happens to requests sent on kept-alive connections around a SIGTERM: {@code --clients}
 * threads each keep one raw HTTP/1.1 connection to 127.0.0.1 and send {@code GET --path} on it in a
 * closed loop (reconnecting when the server closes it); after {@code --warmup-ms} the app's
 * {@code --pid} gets SIGTERM, and the loop goes on for {@code --after-ms} more. Every request written
 * after the signal ends as one of: answered (by status, with whether it said {@code Connection: close}),
 * dropped (written, then the connection ended without a full answer: the client cannot know whether
 * it ran), or refused (no connection could be made: the client knows it did not). A single-file program
 * ({@code java ShutdownDrops.java}), bounded in time, loopback only.
 */
public final class ShutdownDrops {

	public static void main(String[] args) throws Exception {
		Map<String, String> options = new TreeMap<>(Map.of("port", "8080", "clients", "32", "path",
				"/search?q=threads&k=3", "warmup-ms", "2000", "after-ms", "4000"));
		for (String arg : args) {
			String[] pair = arg.replaceFirst("^--", "").split("=", 2);
			options.put(pair[0], pair[1]);
		}
		int port = Integer.parseInt(options.get("port"));
		int clients = Integer.parseInt(options.get("clients"));
		long pid = Long.parseLong(options.get("pid"));
		byte[] request = ("GET " + options.get("path") + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
			.getBytes(StandardCharsets.US_ASCII);
		Map<String, AtomicLong> after = new ConcurrentHashMap<>();
		AtomicLong before = new AtomicLong();
		long[] signalled = { Long.MAX_VALUE };
		long end = System.nanoTime() + (Long.parseLong(options.get("warmup-ms")) + Long.parseLong(options.get("after-ms"))) * 1_000_000;
		List<Thread> threads = new ArrayList<>();
		for (int c = 0; c < clients; c++) {
			Thread thread = new Thread(() -> {
				Socket socket = null;
				while (System.nanoTime() < end) {
					try {
						if (socket == null) {
							socket = new Socket(InetAddress.getLoopbackAddress(), port);
							socket.setSoTimeout(10_000);
						}
					}
					catch (IOException ex) {
						if (System.nanoTime() > signalled[0]) {
							after.computeIfAbsent("refused (no connection)", (k) -> new AtomicLong()).incrementAndGet();
						}
						sleep(20);
						continue;
					}
					boolean afterSignal;
					String outcome;
					try {
						OutputStream out = socket.getOutputStream();
						afterSignal = System.nanoTime() > signalled[0];
						out.write(request);
						out.flush();
						outcome = readAnswer(socket.getInputStream());
					}
					catch (IOException ex) {
						afterSignal = System.nanoTime() > signalled[0];
						outcome = "dropped (" + ex.getClass().getSimpleName() + ")";
					}
					if (outcome.startsWith("dropped") || outcome.endsWith("close")) {
						closeQuietly(socket);
						socket = null;
					}
					if (afterSignal) {
						after.computeIfAbsent(outcome, (k) -> new AtomicLong()).incrementAndGet();
					}
					else {
						before.incrementAndGet();
					}
				}
				closeQuietly(socket);
			});
			thread.start();
			threads.add(thread);
		}
		Thread.sleep(Long.parseLong(options.get("warmup-ms")));
		signalled[0] = System.nanoTime();
		new ProcessBuilder("kill", "-TERM", Long.toString(pid)).inheritIO().start().waitFor();
		for (Thread thread : threads) {
			thread.join();
		}
		long total = after.values().stream().mapToLong(AtomicLong::get).sum();
		System.out.println("before SIGTERM: " + before.get() + " answered; after SIGTERM (" + clients + " clients): "
				+ total + " requests");
		new TreeMap<>(after).forEach((outcome, count) -> System.out.println("  " + outcome + ": " + count));
	}

	/** Reads one answer; "status" or "status close", or "dropped" when the connection ends first. */
	private static String readAnswer(InputStream in) throws IOException {
		ByteArrayOutputStream head = new ByteArrayOutputStream();
		int matched = 0;
		while (matched < 4) {
			int b = in.read();
			if (b < 0) {
				return "dropped (closed before an answer)";
			}
			head.write(b);
			matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : ((b == '\r') ? 1 : 0);
		}
		String text = head.toString(StandardCharsets.ISO_8859_1);
		String status = text.split(" ", 3)[1];
		String lower = text.toLowerCase();
		boolean close = lower.contains("\r\nconnection: close");
		long length = -1;
		for (String line : lower.split("\r\n")) {
			if (line.startsWith("content-length:")) {
				length = Long.parseLong(line.substring(15).trim());
			}
		}
		if (length >= 0) {
			in.readNBytes((int) length);
		}
		else if (lower.contains("transfer-encoding: chunked")) {
			while (true) {
				String size = readLine(in);
				int n = Integer.parseInt(size.trim(), 16);
				in.readNBytes(n + 2);
				if (n == 0) {
					break;
				}
			}
		}
		else {
			in.readAllBytes();
			close = true;
		}
		return status + (close ? " close" : "");
	}

	private static String readLine(InputStream in) throws IOException {
		StringBuilder line = new StringBuilder();
		for (int b = in.read(); b >= 0 && b != '\n'; b = in.read()) {
			if (b != '\r') {
				line.append((char) b);
			}
		}
		return line.toString();
	}

	private static void closeQuietly(Socket socket) {
		try {
			if (socket != null) {
				socket.close();
			}
		}
		catch (IOException ex) {
			// Closing a connection the server has already dropped.
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}
}
