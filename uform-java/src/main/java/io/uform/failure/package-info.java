/**
 * The failure the runtime packages ({@code io.uform.gpu}, {@code io.uform.mesh}) throw:
 * {@link io.uform.failure.RuntimeFailure}, a status and a message a person can act on, which
 * {@code io.uform} turns into the {@code io.uform.UformException} its callers get, with the same
 * status, message, field, value and fix. Its {@code Status} is also what {@code io.uform.host} names
 * when it asks the API for an exception ({@code io.uform.host.HostErrors}): the runtime has one
 * vocabulary of failures.
 *
 * <p>It is a package of its own so that dependencies run one way: {@code io.uform} (the API) uses the
 * runtime packages, and they use this package and name no type of {@code io.uform}. It names nothing
 * of uform itself.
 */
package io.uform.failure;
