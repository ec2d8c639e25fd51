package dev.idem.examples.spring;

import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /charges} (covered by the Idempotency-Key filter: retries replay the first
 * response byte for byte) and {@code GET /charges}.
 */
@RestController
public class ChargeController {
    private final ChargeService charges;

    /**
     * Creates the controller.
     *
     * @param charges the service
     */
    public ChargeController(ChargeService charges) {
        this.charges = charges;
    }

    /**
     * Creates a charge.
     *
     * @param request the charge
     * @return the charge
     */
    @PostMapping("/charges")
    @ResponseStatus(HttpStatus.CREATED)
    public ChargeService.Charge create(@RequestBody ChargeService.ChargeRequest request) {
        return charges.charge(request);
    }

    /**
     * Lists the charges.
     *
     * @return every charge
     */
    @GetMapping("/charges")
    public List<ChargeService.Charge> list() {
        return charges.all();
    }
}
