package dev.kafkamirror.contract;

/**
 * A call refused as a whole, before any partition was touched: {@code {"error": {"code": ...,
 * "message": ...}}} with the code's HTTP status. Nothing changed on the broker.
 */
public record RequestError(Code code, String message) {

  /** Why the call was refused, with its HTTP status. */
  public enum Code {
    /** The body is not a valid request for the call; the message names the field. */
    INVALID_REQUEST(400),
    /** No or a wrong bearer secret. */
    UNAUTHENTICATED(401),
    /** The path names no call. */
    UNKNOWN_CALL(404),
    /** Not a {@value ControlCall#METHOD}. */
    METHOD_NOT_ALLOWED(405),
    /** The request did not arrive within the endpoint's read time limit. */
    REQUEST_TIMEOUT(408),
    /** The body is larger than {@link ControlLimits#MAX_BODY_BYTES}. */
    BODY_TOO_LARGE(413),
    /** A setting of the request is refused by the broker's policy; the message names the key. */
    FORBIDDEN_SETTING(403),
    /** The endpoint's queue is full; repeat the call later. */
    OVERLOADED(503),
    /** The endpoint failed; the message says how. */
    INTERNAL(500);

    private final int httpStatus;

    Code(int httpStatus) {
      this.httpStatus = httpStatus;
    }

    public int httpStatus() {
      return httpStatus;
    }

    /** The code answered with {@code status}, or null. */
    public static Code forStatus(int status) {
      for (Code c : values()) {
        if (c.httpStatus == status) {
          return c;
        }
      }
      return null;
    }
  }
}
